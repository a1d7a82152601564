import AccountsCore
import Glibc

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
  private let makeSecretStore: () throws -> SecretStore
  private var secretStoreCache: SecretStore?

  init(
    variables: [String: String], paths: Paths, terminal: Terminal, output: Output,
    now: @escaping () -> Timestamp, makeSecretStore: @escaping () throws -> SecretStore
  ) {
    self.variables = variables
    self.paths = paths
    self.terminal = terminal
    self.output = output
    self.now = now
    self.makeSecretStore = makeSecretStore
  }

  /// The real environment of this process.
  static func live() throws -> Environment {
    let variables = processEnvironment()
    let terminal = Terminal.current()
    return Environment(
      variables: variables, paths: try Paths(environment: variables), terminal: terminal,
      output: Output(), now: Timestamp.now,
      makeSecretStore: {
        try SecretServiceLibrary(
          timeout: try secretTimeout(variables), promptTimeout: 120,
          mayPrompt: terminal.errorIsTerminal
            && (variables["DISPLAY"] != nil || variables["WAYLAND_DISPLAY"] != nil))
      })
  }

  /// The Secret Service, connected on first use.
  func secretStore() throws -> SecretStore {
    if let secretStoreCache { return secretStoreCache }
    let store = try makeSecretStore()
    secretStoreCache = store
    return store
  }

  var index: IndexStore {
    IndexStore(paths: paths, stallMidWrite: variables["ACCOUNTS_TEST_STALL_WRITE"] == "1")
  }

  var config: ConfigStore { ConfigStore(paths: paths) }
}

/// `ACCOUNTS_SECRET_TIMEOUT`: seconds every Secret Service call may take (default 5).
private func secretTimeout(_ variables: [String: String]) throws(CommandError) -> Double {
  guard let text = variables["ACCOUNTS_SECRET_TIMEOUT"] else { return 5 }
  guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
    throw .usage(
      "ACCOUNTS_SECRET_TIMEOUT='\(Names.printable(text))' is not a number of seconds",
      fix: "set it to a number between 0 and 3600, e.g. ACCOUNTS_SECRET_TIMEOUT=10")
  }
  return seconds
}

/// The process environment, read from `environ` (Foundation's ProcessInfo is not linked).
func processEnvironment() -> [String: String] {
  var variables: [String: String] = [:]
  var entry = environ
  while let pointer = entry.pointee {
    let text = String(cString: pointer)
    if let equals = text.firstIndex(of: "=") {
      variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    entry += 1
  }
  return variables
}
