import AccountsContract
import AccountsJSON
import AccountsSystem
import Glibc

/// The dependency check of an adapter (`ld.so` in trace mode: a fork and several milliseconds)
/// is made once per change of what it depended on, not on every load: a passing verdict is
/// kept with the identity of every file it looked at (device, inode, size, mtime and ctime in
/// nanoseconds), and a later load re-stats those files, without a fork, and uses the verdict
/// only when every one is as it was. Any write, rename, chmod or chown changes a ctime, which
/// only root can set back, so a library swapped for another of the same size and mtime is
/// checked again, and refused if it does not pass.
///
/// The files it depended on: the adapter; every library the loader named (each one's path is
/// walked again, SafePath's rule, and it must still pass the file rule); every directory the
/// loader searches by RUNPATH, RPATH or LD_LIBRARY_PATH, and the hwcaps subdirectories it
/// tries in each, present or not (a new file there can change what it finds; a RUNPATH or
/// RPATH one must still pass the search directory rule); ld.so.cache and
/// the loader itself. The loader's path, LD_LIBRARY_PATH, GLIBC_TUNABLES and the user are part
/// of the key; names accepted because this process had loaded them must be loaded again. A
/// refusal is not kept: it is recomputed.
///
/// The cache is `$XDG_CACHE_HOME/accounts/adapter-checks.json` (default `~/.cache/accounts`),
/// directory 0700, file 0600, replaced atomically. It is trusted only when SafePath would
/// trust it (the user's or root's, on a path only they can change, writable by nobody else);
/// one that is not, or is malformed, is ignored and rewritten.
public struct VerdictCache: Sendable {
  /// The cache file.
  let path: String
  let userID: uid_t

  static let fileName = "adapter-checks.json"
  /// Adapters kept: beyond that, the oldest verdicts go.
  static let limit = 64

  /// The user's cache, nil when no directory for it can be named.
  public static let standard: VerdictCache? = {
    var base = getenv("XDG_CACHE_HOME").map { String(cString: $0) } ?? ""
    if !base.hasPrefix("/") {
      guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") else { return nil }
      base = home + "/.cache"
    }
    return VerdictCache(path: base + "/accounts/" + fileName, userID: getuid())
  }()

  /// Whether the check of `file` passed before, with everything it depended on unchanged.
  func holds(_ file: AdapterFileCheck.CheckedFile, key: String, isLoaded: (String) -> Bool) -> Bool {
    guard let kept = read()[file.path], let stamp = try? file.descriptor.status() else { return false }
    let verdict = JSONReader(kept)
    let safePath = SafePath(userID: userID)
    do {
      guard try verdict.string("key") == key, Stamp(stamp).value == (try verdict.member("adapter"))?.value else {
        return false
      }
      for library in try verdict.array("libraries") {
        guard case .success(let target) = safePath.resolve(try library.string("path")),
          safePath.fileProblem(target.status, path: target.path) == nil,
          Stamp(target.status).value == (try library.member("stamp"))?.value
        else { return false }
      }
      for directory in try verdict.array("directories") {
        let path = try directory.string("path")
        let stamp = Stamp(path: path).value
        guard stamp == (try directory.member("stamp"))?.value ?? .null else { return false }
        // One absent now was absent when checked: nothing in it to judge.
        if try directory.bool("searched"), stamp != .null, safePath.checkSearchDirectory(path) != nil { return false }
      }
      return try verdict.array("loaded").allSatisfy { isLoaded(try $0.asString()) }
    } catch {
      return false
    }
  }

  /// What the verdict of `file` keeps of its adapter's session check (`note`), when the
  /// verdict holds.
  func sessionCheck(
    of file: AdapterFileCheck.CheckedFile, key: String, isLoaded: (String) -> Bool
  ) -> AdapterDescription.SessionCheck? {
    guard holds(file, key: key, isLoaded: isLoaded), let kept = read()[file.path],
      let names = try? JSONReader(kept).optionalArray("session_check")
    else { return nil }
    guard let settings = try? names.map({ (name) throws(JSONShapeError) in try name.asString() }) else { return nil }
    return .onlyWith(settings)
  }

  /// Adds to the kept verdict of `path` the session check its adapter declared once loaded, so
  /// that a later command knows it without loading the adapter. Only a declared one is kept;
  /// the file is written only when that changes what it says.
  func note(_ check: AdapterDescription.SessionCheck, for path: String) {
    var verdicts = read()
    guard var verdict = verdicts[path].flatMap({ try? JSONReader($0).asObject() }) else { return }
    let value: JSONValue? =
      switch check {
      case .undeclared: nil
      case .onlyWith(let names): .array(names.map { .string($0) })
      }
    guard verdict["session_check"] != value else { return }
    verdict["session_check"] = value
    verdicts[path] = .object(verdict)
    write(JSON.serialize(.object(["version": .number(JSONNumber(1)), "adapters": .object(verdicts)]), pretty: false))
  }

  /// Keeps the passing check of `file` with what it depended on. The directories that were
  /// known before the check (`before`) were stamped before it, so a change during it is seen.
  func record(
    _ file: AdapterFileCheck.CheckedFile, key: String, inputs: AdapterFileCheck.DependencyInputs,
    before: [String: JSONValue]
  ) {
    guard let status = try? file.descriptor.status() else { return }
    let searched = Set(Self.tried(inputs.searched))
    // A subdirectory the check did not judge that the search directory rule refuses: not kept.
    let safePath = SafePath(userID: userID)
    for path in searched where Stamp(path: path).value != .null {
      if safePath.checkSearchDirectory(path) != nil { return }
    }
    var directories: [JSONValue] = []
    for path in searched.union(Self.unsearched).sorted() {
      directories.append(.object([
        "path": .string(path), "stamp": before[path] ?? Stamp(path: path).value,
        "searched": .bool(searched.contains(path)),
      ]))
    }
    let verdict: JSONValue = .object([
      "key": .string(key), "adapter": Stamp(status).value,
      "libraries": .array(inputs.libraries.map { .object(["path": .string($0.path), "stamp": Stamp($0.status).value]) }),
      "directories": .array(directories),
      "loaded": .array(inputs.loaded.map { .string($0) }),
    ])
    var verdicts = read()
    verdicts[file.path] = nil
    while verdicts.count >= Self.limit, let oldest = verdicts.keys.first { verdicts[oldest] = nil }
    verdicts[file.path] = verdict
    write(JSON.serialize(.object(["version": .number(JSONNumber(1)), "adapters": .object(verdicts)]), pretty: false))
  }

  /// The files besides the searched directories that every verdict depends on: ld.so.cache
  /// and the loader, and LD_LIBRARY_PATH's directories (searched before everything else).
  static var unsearched: [String] {
    var paths = ["/etc/ld.so.cache"]
    if case .success(let loader) = LibraryDependencies.systemLoader { paths.append(loader) }
    if let value = getenv("LD_LIBRARY_PATH") {
      paths += tried(String(cString: value).split(separator: ":").map(String.init).filter { $0.hasPrefix("/") })
    }
    return paths
  }

  /// The subdirectories the loader tries in each directory it searches, before the directory
  /// itself: glibc-hwcaps/ ones and, before glibc 2.37, tls/, platform and hwcap ones and their
  /// combinations (x86-64). Each is stamped whether it exists or not: a library planted in one
  /// made later changes what the loader finds.
  static let triedSubdirectories: [String] = {
    var legacy: [String] = []
    for tls in ["", "tls/"] {
      for platform in ["", "x86_64/", "haswell/", "xeon_phi/"] {
        for capability in ["", "x86_64/", "avx512_1/", "avx512_1/x86_64/"] where !(tls + platform + capability).isEmpty {
          legacy.append(String((tls + platform + capability).dropLast()))
        }
      }
    }
    return ["glibc-hwcaps/x86-64-v4", "glibc-hwcaps/x86-64-v3", "glibc-hwcaps/x86-64-v2", "glibc-hwcaps"] + legacy
  }()

  /// `directories` with every subdirectory the loader tries in each.
  static func tried(_ directories: [String]) -> [String] {
    directories.flatMap { directory in
      [directory] + triedSubdirectories.map { (directory.hasSuffix("/") ? directory : directory + "/") + $0 }
    }
  }

  /// The stamps of `paths` now: taken before a check, for `record`.
  static func stamps(_ paths: [String]) -> [String: JSONValue] {
    Dictionary(paths.map { ($0, Stamp(path: $0).value) }, uniquingKeysWith: { first, _ in first })
  }

  /// What a verdict is kept for: the loader, where it looks, and the user whose files pass.
  static func key(loader: String, userID: uid_t) -> String {
    let variables = ["LD_LIBRARY_PATH", "GLIBC_TUNABLES"].map { (name: String) -> String in
      let value: String = getenv(name).map { String(cString: $0) } ?? ""
      return name + "=" + value
    }
    return ([loader] + variables + ["uid=\(userID)"]).joined(separator: "\u{0}")
  }

  // MARK: The file

  /// The kept verdicts by adapter path, oldest first; none when the file is missing, untrusted
  /// or malformed.
  private func read() -> JSONObject {
    let safePath = SafePath(userID: userID)
    guard case .success(let found?) = safePath.resolveIfPresent(path),
      safePath.fileProblem(found.status, path: found.path) == nil, found.status.st_size <= 1 << 20,
      let descriptor = try? FileDescriptor.open(found.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    else { return JSONObject() }
    defer { descriptor.close() }
    guard let status = try? descriptor.status(), status.st_dev == found.status.st_dev,
      status.st_ino == found.status.st_ino
    else { return JSONObject() }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    guard (try? bytes.withUnsafeMutableBytes { try descriptor.read(at: 0, into: $0) }) == bytes.count,
      let value = try? JSON.parse(bytes), (try? JSONReader(value).int64("version")) == 1,
      let adapters = try? JSONReader(value).object("adapters").asObject()
    else { return JSONObject() }
    return adapters
  }

  /// Replaces the file with `text`, atomically, creating its directories 0700.
  private func write(_ text: String) {
    let directory = String(path[..<path.lastIndex(of: "/")!])
    let base = String(directory[..<directory.lastIndex(of: "/")!])
    mkdir(base, 0o700)
    mkdir(directory, 0o700)
    // Written only where it will be read: a directory only root or the user can change.
    guard case .success(let found) = SafePath(userID: userID).resolve(directory),
      found.status.st_mode & S_IFMT == S_IFDIR
    else { return }
    var template = Array((directory + "/.adapter-checks-XXXXXX").utf8CString)
    let descriptor = mkstemp(&template)
    guard descriptor >= 0 else { return }
    try? FileDescriptor(rawValue: descriptor).setInheritedAcrossExec(false)
    let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let written = (try? FileDescriptor(rawValue: descriptor).writeAll(Array(text.utf8))) != nil
    fchmod(descriptor, 0o600)
    close(descriptor)
    if !written || rename(temporary, path) != 0 { unlink(temporary) }
  }
}

/// A file's identity and version: device, inode, size, mtime and ctime (nanoseconds).
struct Stamp {
  let value: JSONValue

  init(_ status: stat) {
    let numbers: [Int64] = [
      Int64(bitPattern: UInt64(status.st_dev)), Int64(bitPattern: UInt64(status.st_ino)), Int64(status.st_size),
      Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
      Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec),
    ]
    value = .array(numbers.map { .number(JSONNumber($0)) })
  }

  /// The stamp of what `path` leads to, or null when it leads nowhere.
  init(path: String) {
    var status = stat()
    value = stat(path, &status) == 0 ? Stamp(status).value : .null
  }
}
