import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc
import Synchronization

/// Every effect a command has comes through this one value: the process environment, file
/// paths, the clock, the terminal, stdout/stderr and the Secret Service. Tests build one with
/// their own parts; `live()` builds the real one without touching D-Bus, which only happens
/// when a command first asks for `secretStore()`.
final class Environment {
  let variables: [String: String]
  let paths: Paths
  let terminal: Terminal
  let output: Output
  let now: () -> Timestamp
  /// The working directory, for the directory rules.
  let currentDirectory: () -> WorkingDirectory
  private let makeSecretStore: () throws -> SecretStore
  private let makeAdapterHost: () throws -> AdapterHosting
  /// The one cache of each, made on first use by whichever thread asks first (`status --jobs`
  /// runs flows on several).
  private let secretStoreCache = Mutex(Cached<SecretStore>())
  private let adapterHostCache = Mutex(Cached<AdapterHosting>())
  /// Tokens kept outside the Secret Service for fast reads (the kernel keyring); nil: none.
  let tokenCache: TokenCache?

  init(
    variables: [String: String], paths: Paths, terminal: Terminal, output: Output,
    now: @escaping () -> Timestamp, makeSecretStore: @escaping () throws -> SecretStore,
    makeAdapterHost: @escaping () throws -> AdapterHosting = { LinkedAdapterHost() },
    tokenCache: TokenCache? = nil, currentDirectory: (() -> WorkingDirectory)? = nil
  ) {
    self.tokenCache = tokenCache
    self.currentDirectory = currentDirectory ?? { WorkingDirectory.current(pwd: variables["PWD"]) }
    self.variables = variables
    self.paths = paths
    self.terminal = terminal
    self.output = output
    self.now = now
    self.makeSecretStore = makeSecretStore
    self.makeAdapterHost = makeAdapterHost
  }

  /// The real environment of this process.
  static func live() throws -> Environment {
    let (variables, notText) = processEnvironment()
    if let name = notText.first(where: { $0 == "HOME" || $0.hasPrefix("XDG_") || $0.hasPrefix("ACCOUNTS_") }) {
      throw CommandError.usage(
        "the environment variable \(Names.printable(name)) is not valid UTF-8 text",
        fix: "set it to UTF-8 text (accounts reads its paths and settings from it)")
    }
    let terminal = Terminal.current(term: variables["TERM"])
    let paths = try Paths(environment: variables)
    return Environment(
      variables: variables, paths: paths, terminal: terminal,
      output: Output(), now: Timestamp.now,
      makeSecretStore: {
        let timeout = try secretTimeout(variables)
        let promptTimeout = try seconds(variables, "ACCOUNTS_PROMPT_TIMEOUT", default: 120)
        return SecretServiceStore(busAddress: variables["DBUS_SESSION_BUS_ADDRESS"], timeout: timeout) {
          try PrivateSecretStore(
            timeout: timeout, promptTimeout: promptTimeout,
            mayPrompt: terminal.errorIsTerminal
              && (variables["DISPLAY"] != nil || variables["WAYLAND_DISPLAY"] != nil),
            quiet: variables["ACCOUNTS_DEBUG"] == nil)
        }
      },
      tokenCache: tokenCache(variables, paths))
  }

  /// The kernel keyring's token cache, unless ACCOUNTS_TOKEN_CACHE=0 turns it off or there is
  /// no session bus to ask whether the keyring is locked.
  private static func tokenCache(_ variables: [String: String], _ paths: Paths) -> TokenCache? {
    guard variables["ACCOUNTS_TOKEN_CACHE"] != "0" else { return nil }
    guard let bus = variables["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty else { return nil }
    // An ACCOUNTS_SECRET_TIMEOUT that is no number is the store's to report.
    let timeout = (try? secretTimeout(variables)) ?? 5
    return KernelTokenCache(stateDirectory: paths.stateDirectory, busAddress: bus, secretTimeout: timeout)
  }

  /// How long a Secret Service call may take: ACCOUNTS_SECRET_TIMEOUT, 5 s by default.
  static func secretTimeout(_ variables: [String: String]) throws(CommandError) -> Double {
    try seconds(variables, "ACCOUNTS_SECRET_TIMEOUT", default: 5)
  }

  /// Host names in their ASCII form, by libidn2 (loaded on first use).
  var hostNames: any HostNameConversion { IDNAHostNames() }

  /// The Secret Service, connected on first use.
  func secretStore() throws -> SecretStore {
    let make = makeSecretStore
    return try secretStoreCache.withLock { cache in try cache.get(make) }.value
  }

  /// Whether lines of progress and "waiting for" notices are drawn: on a terminal that can
  /// redraw a line (`Terminal.showsProgress`), and not under `--quiet`, which keeps stderr to
  /// what went wrong.
  var showsProgress: Bool { terminal.showsProgress && !output.quiet }

  /// The adapter host, loaded on first use.
  func adapterHost() throws -> AdapterHosting {
    let make = makeAdapterHost
    return try adapterHostCache.withLock { cache in try cache.get(make) }.value
  }

  /// Where adapters are looked for (SPEC §5): $ACCOUNTS_ADAPTER_PATH, the user's adapter
  /// directory, then the built-in adapters.
  var adapterSearchPath: AdapterSearchPath {
    var directories: [AdapterSearchPath.Directory] = []
    for entry in (variables["ACCOUNTS_ADAPTER_PATH"] ?? "").split(separator: ":") where entry.hasPrefix("/") {
      directories.append(.init(path: String(entry)))
    }
    directories.append(.init(path: paths.userAdapters))
    if let builtIn = InstalledFiles.builtInAdapters() { directories.append(builtIn) }
    return AdapterSearchPath(directories: directories)
  }

  /// `ACCOUNTS_NETWORK_TIMEOUT`: seconds one adapter operation may take, requests included.
  func networkTimeout() throws(CommandError) -> Double {
    try seconds(variables, "ACCOUNTS_NETWORK_TIMEOUT", default: 20)
  }

  /// `ACCOUNTS_ADAPTER_LOAD_TIMEOUT`: seconds one adapter file may take to load when listed
  /// (`adapters`, `doctor`) before it is reported as hanging.
  func adapterLoadTimeout() throws(CommandError) -> Double {
    try seconds(variables, "ACCOUNTS_ADAPTER_LOAD_TIMEOUT", default: 5)
  }

  var index: IndexStore { IndexStore(paths: paths) }

  var config: ConfigStore { ConfigStore(paths: paths) }

  /// The only way commands change the keyring together with the index or the config.
  var ledger: Ledger { ledger(secrets: { [unowned self] in try self.secretStore() }) }

  /// The ledger over another way to reach the Secret Service (one call at a time, for the
  /// session flow's threads).
  func ledger(secrets: @escaping () throws -> SecretStore) -> Ledger {
    Ledger(
      index: index, config: config, adoptSecretService: variables["ACCOUNTS_ADOPT_SECRET_SERVICE"] == "1",
      tokenCache: tokenCache, secrets: secrets)
  }
}

/// A number of seconds from the environment, (0, 3600].
private func seconds(
  _ variables: [String: String], _ variable: String, default fallback: Double
) throws(CommandError) -> Double {
  guard let text = variables[variable] else { return fallback }
  guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
    throw .usage(
      "\(variable)='\(Names.printable(text))' is not a number of seconds",
      fix: "set it to a number between 0 and 3600, e.g. \(variable)=10")
  }
  return seconds
}

/// The process environment, read from `environ` (Foundation's ProcessInfo is not linked): the
/// variables that are UTF-8 text, and the names of those that are not (read as Swift strings
/// they would turn into U+FFFD, and a path into another path).
func processEnvironment() -> (variables: [String: String], notText: [String]) {
  var variables: [String: String] = [:]
  var notText: [String] = []
  var entry = environ
  while let pointer = entry.pointee {
    entry += 1
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
    guard let equals = bytes.firstIndex(of: 0x3D) else { continue }
    let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<equals]), as: UTF8.self)
    guard let value = String(validating: UnsafeBufferPointer(rebasing: bytes[(equals + 1)...]), as: UTF8.self),
      String(validating: UnsafeBufferPointer(rebasing: bytes[..<equals]), as: UTF8.self) != nil
    else {
      notText.append(name)
      continue
    }
    variables[name] = value
  }
  return (variables, notText)
}

/// A value made on first use and kept (inside a Mutex): a failure is not kept, the next use
/// tries again. @unchecked: the values kept (the store, the host) are safe to share across
/// threads.
struct Cached<Value>: @unchecked Sendable {
  private var value: Value?

  mutating func get(_ make: () throws -> Value) throws -> Shared {
    if let value { return Shared(value: value) }
    let made = try make()
    value = made
    return Shared(value: made)
  }

  /// The value, handed out of the Mutex.
  struct Shared: @unchecked Sendable {
    let value: Value
  }
}
