import AccountsContract
import AccountsSystem
import CAccountsAdapter
import Glibc
import Synchronization

/// An adapter that passed every check: its descriptor and the functions it exports.
public struct LoadedAdapter: @unchecked Sendable {
  public let description: AdapterDescription
  let descriptor: UnsafePointer<acc_adapter>
  let sessionNew: @convention(c) (UnsafePointer<acc_session_config>?) -> UnsafeMutableRawPointer?
  let step: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<acc_response>?, UnsafeMutablePointer<acc_step_output>?) -> Int32
  let sessionFree: @convention(c) (UnsafeMutableRawPointer?) -> Void

  /// What a LOGIN needs with the backend's non-secret `settings` (ABI 1.3's login_needs); a
  /// password for adapters before 1.3 and those without the function. Only declared settings
  /// are handed over, as to a session.
  public func loginNeeds(settings: [String: String]) -> LoginNeeds {
    guard description.abiVersion >> 16 == 1, description.abiVersion & 0xFFFF >= 3,
      let function = DescriptorCheck.fields(of: descriptor).login_needs
    else { return .password }
    let arena = CArena()
    let declared = description.settings.filter { !$0.isSecret }.compactMap { setting in
      settings[setting.name].map { (setting.name, $0) }
    }
    var pairs = arena.pairs(declared)
    // Adapter code: a crash in it is the adapter's, reported as such.
    let call = AdapterContainment.prepare(adapter: description.name, during: "while asking what login needs")
    defer { AdapterContainment.release(call) }
    let answer = AdapterContainment.run(call) { function(&pairs) }
    return LoginNeeds(rawValue: answer & (LoginNeeds.password.rawValue | LoginNeeds.person.rawValue))
  }
}

/// Loads adapter files: check, `dlopen(RTLD_NOW | RTLD_LOCAL)`, check the descriptor. Never
/// `dlclose`s (unloading a Swift library crashed the host on its next type check), so each file
/// is loaded once per process and the result remembered.
///
/// Thread-safe. Loading happens under the lock, so threads asking for the same file at once
/// wait for one check and one `dlopen` and all get its result, not one each from a file that
/// may have changed in between. Loads are rare (once per file) and dlopen serialises on the
/// loader's own lock anyway; calls into adapters that are already loaded never take it.
public enum AdapterLoader {
  /// This host's ABI version.
  public static let abiVersion = UInt32(ACC_ADAPTER_ABI_MAJOR << 16 | ACC_ADAPTER_ABI_MINOR)

  private static let loaded = Mutex<[String: Result<LoadedAdapter, Refusal>]>([:])

  /// The adapter in `path`, which must stand for `name`; the refusal reason otherwise. With a
  /// `cache`, the dependency check is made only when what it depended on has changed.
  static func load(
    _ path: String, name: String, check: AdapterFileCheck = AdapterFileCheck(), cache: VerdictCache? = nil
  ) -> Result<LoadedAdapter, Refusal> {
    loaded.withLock { loaded in
      if let known = loaded[path] { return known }
      let result = open(path, name: name, check: check, cache: cache)
      loaded[path] = result
      return result
    }
  }

  private static func open(
    _ path: String, name: String, check: AdapterFileCheck, cache: VerdictCache?
  ) -> Result<LoadedAdapter, Refusal> {
    let file: AdapterFileCheck.CheckedFile
    switch check.open(path) {
    case .success(let checked): file = checked
    case .failure(let refusal): return .failure(refusal)
    }
    defer { file.descriptor.close() }
    if let refusal = check.checkLinking(file) { return .failure(refusal) }
    // What the loader would load with it, transitively: asked of the loader, checked file by
    // file. Names this process has loaded already are not searched for again by dlopen.
    switch LibraryDependencies.systemLoader {
    case .failure(let refusal): return .failure(refusal)
    case .success(let loader):
      let isLoaded = { (name: String) in dlopen(name, RTLD_NOLOAD | RTLD_LAZY) != nil }
      if let cache, cache.holds(file, key: VerdictCache.key(loader: loader, userID: check.userID), isLoaded: isLoaded) {
        break
      }
      // Stamped before the check: a change while it runs is a change.
      let before = VerdictCache.stamps(VerdictCache.unsearched + VerdictCache.tried(check.searchDirectories(file)))
      switch check.vetDependencies(file, loader: loader, isLoaded: isLoaded) {
      case .failure(let refusal): return .failure(refusal)
      case .success(let inputs):
        cache?.record(file, key: VerdictCache.key(loader: loader, userID: check.userID), inputs: inputs, before: before)
      }
    }
    // dlopen is given the checked path, not /proc/self/fd/N: glibc takes $ORIGIN from the
    // name it was given, and under /proc/self/fd, $ORIGIN/../cwd is the current directory.
    // Every directory on the path passed SafePath, so only root or the user can replace the
    // file; that it is still the file checked is confirmed just before.
    var status = stat()
    guard stat(file.path, &status) == 0, let checked = try? file.descriptor.status(),
      status.st_dev == checked.st_dev, status.st_ino == checked.st_ino
    else {
      return .failure(Refusal("\(file.path) was replaced while it was being checked"))
    }
    // Its constructors, its entry and the descriptor it returns are adapter code.
    let call = AdapterContainment.prepare(adapter: name, during: "while loading")
    defer { AdapterContainment.release(call) }
    let result = AdapterContainment.run(call) { enter(file.path, name: name) }
    if case .success(let adapter) = result { cache?.note(adapter.description.sessionCheck, for: file.path) }
    return result
  }

  /// When the adapter in `path` says its CHECK asks the backend, without loading it: loaded
  /// already in this process, or kept with a verdict of the cache that still holds (the file
  /// and everything it depends on unchanged). Nil otherwise: the caller loads it.
  static func knownSessionCheck(
    _ path: String, check: AdapterFileCheck = AdapterFileCheck(), cache: VerdictCache?
  ) -> AdapterDescription.SessionCheck? {
    if let known = loaded.withLock({ $0[path] }) {
      guard case .success(let adapter) = known else { return nil }
      return adapter.description.sessionCheck
    }
    guard let cache, case .success(let file) = check.open(path) else { return nil }
    defer { file.descriptor.close() }
    guard check.checkLinking(file) == nil, case .success(let loader) = LibraryDependencies.systemLoader else {
      return nil
    }
    let isLoaded = { (name: String) in dlopen(name, RTLD_NOLOAD | RTLD_LAZY) != nil }
    return cache.sessionCheck(of: file, key: VerdictCache.key(loader: loader, userID: check.userID), isLoaded: isLoaded)
  }

  /// dlopen and the entry: the descriptor, checked.
  private static func enter(_ path: String, name: String) -> Result<LoadedAdapter, Refusal> {
    _ = dlerror()
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
      let detail = dlerror().map { String(cString: $0) } ?? "unknown error"
      return .failure(Refusal("dlopen failed: \(detail)"))
    }
    // Loaded for good: never dlclose'd.
    guard let entry = dlsym(handle, ACC_ADAPTER_ENTRY_NAME) else {
      return .failure(Refusal(missingEntryReason(handle)))
    }
    typealias Entry = @convention(c) (UInt32) -> UnsafePointer<acc_adapter>?
    guard let descriptor = unsafeBitCast(entry, to: Entry.self)(abiVersion) else {
      return .failure(Refusal("\(ACC_ADAPTER_ENTRY_NAME) returned no descriptor: the adapter does not work with ABI \(AdapterDescription.abiText(abiVersion))"))
    }
    return DescriptorCheck(descriptor: descriptor, expectedName: name, path: path).loaded()
  }

  /// Says which ABI the library was built for when it exports another major's entry.
  private static func missingEntryReason(_ handle: UnsafeMutableRawPointer) -> String {
    for major in 2...9 where dlsym(handle, "accounts_adapter_v\(major)") != nil {
      return "built for adapter ABI \(major).x (exports accounts_adapter_v\(major)); this accounts speaks \(AdapterDescription.abiText(abiVersion))"
    }
    return "no \(ACC_ADAPTER_ENTRY_NAME) symbol: not an accounts adapter, or built for another ABI"
  }
}

/// The descriptor checks: ABI version, name, functions, strings and settings in bounds.
struct DescriptorCheck {
  let descriptor: UnsafePointer<acc_adapter>
  let expectedName: String
  let path: String

  static let maxSettings = 64
  static let maxShortString = 256
  static let maxLongString = 4096

  func loaded() -> Result<LoadedAdapter, Refusal> {
    do {
      return .success(try check())
    } catch {
      return .failure(error)
    }
  }

  private func check() throws(Refusal) -> LoadedAdapter {
    let adapter = Self.fields(of: descriptor)
    let hostVersion = AdapterLoader.abiVersion
    if adapter.abi_version >> 16 != hostVersion >> 16 {
      throw Refusal("built for adapter ABI \(AdapterDescription.abiText(adapter.abi_version)); this accounts speaks \(AdapterDescription.abiText(hostVersion))")
    }
    if adapter.abi_version & 0xFFFF > hostVersion & 0xFFFF {
      throw Refusal("built for adapter ABI \(AdapterDescription.abiText(adapter.abi_version)), newer than this accounts (\(AdapterDescription.abiText(hostVersion))); update accounts")
    }
    let name = try text(adapter.name, "name", limit: Self.maxShortString)
    guard name == expectedName else {
      throw Refusal("its descriptor says name '\(Names.printable(name))'; the file must be called \(name).so")
    }
    guard let sessionNew = adapter.session_new, let step = adapter.step, let sessionFree = adapter.session_free else {
      throw Refusal("its descriptor lacks session_new, step or session_free")
    }
    guard adapter.settings_count <= Self.maxSettings else {
      throw Refusal("declares \(adapter.settings_count) settings; at most \(Self.maxSettings) are allowed")
    }
    var settings: [AdapterSetting] = []
    // ONE_TIME_CODE came with 1.1: on a 1.0 descriptor the bit means nothing, and the host must
    // not ask anyone for a code that adapter cannot know about.
    let knowsOneTimeCodes = adapter.abi_version & 0xFFFF >= 1
    if adapter.settings_count > 0 {
      guard let declared = adapter.settings else { throw Refusal("settings_count is set but settings is NULL") }
      for index in 0..<adapter.settings_count {
        let setting = declared[index]
        let settingName = try text(setting.name, "setting name", limit: 64)
        guard AdapterSetting.isValidName(settingName), !settings.contains(where: { $0.name == settingName }) else {
          throw Refusal("setting name '\(Names.printable(settingName))' is not lowercase [a-z0-9_] or is declared twice")
        }
        settings.append(AdapterSetting(
          name: settingName, label: try text(setting.label, "label of \(settingName)", limit: Self.maxShortString),
          isSecret: setting.flags & ACC_SETTING_SECRET != 0,
          isOptional: setting.flags & ACC_SETTING_OPTIONAL != 0,
          isPerAccount: setting.flags & ACC_SETTING_PER_ACCOUNT != 0,
          isOneTimeCode: knowsOneTimeCodes && setting.flags & ACC_SETTING_ONE_TIME_CODE != 0,
          defaultValue: try text(setting.default_value, "default of \(settingName)", limit: Self.maxShortString)))
      }
    }
    // CHECK_DECLARED and SESSION_CHECK came with 1.2: `fields` left `flags` zero before it.
    let sessionCheck: AdapterDescription.SessionCheck =
      adapter.flags & ACC_ADAPTER_CHECK_DECLARED == 0
      ? .undeclared
      : .onlyWith(declared(settings: adapter, among: settings))
    let description = AdapterDescription(
      name: name, version: try text(adapter.version, "version", limit: 64),
      summary: try text(adapter.description, "description", limit: Self.maxLongString),
      abiVersion: adapter.abi_version, settings: settings, path: path, sessionCheck: sessionCheck)
    return LoadedAdapter(
      description: description, descriptor: descriptor, sessionNew: sessionNew, step: step,
      sessionFree: sessionFree)
  }

  /// The settings flagged ACC_SETTING_SESSION_CHECK, in declared order.
  private func declared(settings adapter: acc_adapter, among settings: [AdapterSetting]) -> [String] {
    (0..<settings.count).compactMap { index in
      adapter.settings![index].flags & ACC_SETTING_SESSION_CHECK != 0 ? settings[index].name : nil
    }
  }

  /// The descriptor's fields as far as the header it was built with has them: a 1.0 or 1.1
  /// descriptor ends before `flags`, a 1.2 one before `login_needs`; what it lacks reads as
  /// zero, and nothing past its end is read.
  static func fields(of descriptor: UnsafePointer<acc_adapter>) -> acc_adapter {
    var fields = acc_adapter()
    let version = descriptor.pointer(to: \.abi_version)!.pointee
    let minor = version >> 16 == 1 ? version & 0xFFFF : 0
    let known =
      minor >= 3 ? MemoryLayout<acc_adapter>.size
      : minor == 2 ? MemoryLayout<acc_adapter>.offset(of: \.login_needs)! : MemoryLayout<acc_adapter>.offset(of: \.flags)!
    withUnsafeMutableBytes(of: &fields) { bytes in
      bytes.copyMemory(from: UnsafeRawBufferPointer(start: descriptor, count: known))
    }
    return fields
  }

  private func text(_ string: acc_string, _ what: String, limit: Int) throws(Refusal) -> String {
    switch AdapterText.read(string, limit: limit) {
    case .success(let text): return text
    case .failure(let problem): throw Refusal("its \(what) is \(problem)")
    }
  }
}

/// Reading an `acc_string` an adapter handed over, which may be anything.
enum AdapterText {
  enum Problem: Error, CustomStringConvertible {
    case tooLong(Int, limit: Int)
    case null
    case notUTF8

    var description: String {
      switch self {
      case .tooLong(let length, let limit): "\(length) bytes long (at most \(limit))"
      case .null: "a NULL pointer with a length"
      case .notUTF8: "not UTF-8"
      }
    }
  }

  static func bytes(_ string: acc_string, limit: Int) -> Result<UnsafeRawBufferPointer, Problem> {
    guard string.length > 0 else { return .success(UnsafeRawBufferPointer(start: nil, count: 0)) }
    guard string.length <= limit else { return .failure(.tooLong(string.length, limit: limit)) }
    guard let start = string.bytes else { return .failure(.null) }
    return .success(UnsafeRawBufferPointer(start: start, count: string.length))
  }

  static func read(_ string: acc_string, limit: Int) -> Result<String, Problem> {
    switch bytes(string, limit: limit) {
    case .failure(let problem): return .failure(problem)
    case .success(let buffer):
      guard let text = String(validating: buffer.bindMemory(to: UInt8.self), as: UTF8.self) else {
        return .failure(.notUTF8)
      }
      return .success(text)
    }
  }
}
