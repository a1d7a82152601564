import AccountsContract
import AccountsJSON
import AccountsSystem

/// A named login target (SPEC §2): which adapter, and its non-secret settings. Secret settings
/// live in the Secret Service; the configuration only lists their names, so that `backend show`
/// can say "(in keyring)" without touching D-Bus.
public struct BackendConfig: Sendable, Equatable {
  public var name: String
  public var adapter: String
  public var settings: [String: String]
  /// Names of settings whose values are in the Secret Service (kind `setting:NAME`).
  public var secretSettings: [String]
  /// Members of the backend's object that this version does not know, kept as they were.
  public var unknownFields: JSONObject

  public init(
    name: String, adapter: String, settings: [String: String] = [:], secretSettings: [String] = [],
    unknownFields: JSONObject = [:]
  ) {
    self.name = name
    self.adapter = adapter
    self.settings = settings
    self.secretSettings = secretSettings.sorted()
    self.unknownFields = unknownFields
  }
}

/// The content of config.json: the backends and the hooks.
public struct Configuration: Sendable, Equatable {
  /// Sorted by name.
  public private(set) var backends: [BackendConfig]
  /// Backends whose secret settings in the keyring may disagree with this configuration: a
  /// command that changes both was interrupted between the two (see `Ledger`). Sorted.
  public private(set) var unsettled: [String]
  /// The program that keeps the backends' secret settings (see `AccountBook.secretService`).
  public var secretService: String?
  /// Commands run after `switch`, `login` and `logout`, in the order added (see `Hook`).
  public var hooks: [Hook]

  /// Whether any backend has secret settings in the keyring (see `AccountBook.claimsSecrets`).
  public var claimsSecrets: Bool { backends.contains { !$0.secretSettings.isEmpty } }
  /// Top-level members of config.json that this version does not know, kept as they were.
  public var unknownFields: JSONObject
  /// The directory rules (SPEC §3), longest directory first; one per directory.
  public private(set) var rules: [DirectoryRule]

  public init(
    backends: [BackendConfig] = [], unsettled: [String] = [], secretService: String? = nil,
    rules: [DirectoryRule] = [], hooks: [Hook] = [], unknownFields: JSONObject = [:]
  ) throws(ConfigurationError) {
    self.rules = DirectoryRule.ordered(rules)
    for (earlier, later) in zip(self.rules, self.rules.dropFirst()) where earlier.directory == later.directory {
      throw .duplicateRule(later.directory)
    }
    self.unsettled = Array(Set(unsettled)).sorted()
    self.secretService = secretService
    self.hooks = hooks
    self.unknownFields = unknownFields
    self.backends = backends.sorted { $0.name < $1.name }
    for (earlier, later) in zip(self.backends, self.backends.dropFirst())
    where earlier.name == later.name {
      throw .duplicateBackend(later.name)
    }
  }

  public subscript(name: String) -> BackendConfig? {
    backends.first { $0.name == name }
  }

  public mutating func add(_ backend: BackendConfig) throws(ConfigurationError) {
    guard self[backend.name] == nil else { throw .backendExists(backend.name) }
    backends.append(backend)
    backends.sort { $0.name < $1.name }
  }

  /// Changes the backend `name` in place; nothing when there is none. Its name stays.
  public mutating func update(_ name: String, _ change: (inout BackendConfig) -> Void) {
    guard let index = backends.firstIndex(where: { $0.name == name }) else { return }
    change(&backends[index])
    backends[index].name = name
    backends[index].secretSettings.sort()
  }

  @discardableResult
  public mutating func remove(_ name: String) -> BackendConfig? {
    guard let index = backends.firstIndex(where: { $0.name == name }) else { return nil }
    return backends.remove(at: index)
  }

  /// Records that `name`'s secret settings may no longer match the configuration.
  public mutating func markUnsettled(_ name: String) {
    if !unsettled.contains(name) { unsettled = (unsettled + [name]).sorted() }
  }

  /// Records that `name`'s secret settings match the configuration again.
  public mutating func markSettled(_ name: String) {
    unsettled.removeAll { $0 == name }
  }

  /// Adds the rule for `rule.directory`, replacing the one there was; returns the replaced one.
  @discardableResult
  public mutating func setRule(_ rule: DirectoryRule) -> DirectoryRule? {
    let replaced = removeRule(directory: rule.directory)
    rules = DirectoryRule.ordered(rules + [rule])
    return replaced
  }

  /// Removes the rule for exactly `directory`; returns it, or nil when there was none.
  @discardableResult
  public mutating func removeRule(directory: String) -> DirectoryRule? {
    guard let index = rules.firstIndex(where: { $0.directory == directory }) else { return nil }
    return rules.remove(at: index)
  }

  /// The backend `name`, with "did you mean" when there is none.
  public func backend(named name: String) throws(ConfigurationError) -> BackendConfig {
    if let backend = self[name] { return backend }
    throw .unknownBackend(name, suggestions: Suggestions.closest(to: name, in: backends.map(\.name)))
  }

  /// The backend a new account goes to: `requested` (from `--backend` or `user@backend`), else
  /// the only backend there is.
  public func backendForNewAccount(requested: String?) throws(ConfigurationError) -> BackendConfig {
    if let requested { return try backend(named: requested) }
    switch backends.count {
    case 0: throw .noBackends
    case 1: return backends[0]
    default: throw .backendNeeded(backends.map(\.name))
    }
  }
}

public enum ConfigurationError: UserFacingError, Equatable {
  case unknownBackend(String, suggestions: [String])
  case backendExists(String)
  case duplicateBackend(String)
  case duplicateRule(String)
  case noBackends
  case backendNeeded([String])

  public var status: ExitStatus {
    switch self {
    case .unknownBackend, .noBackends, .backendNeeded: .usage
    case .backendExists, .duplicateBackend, .duplicateRule: .failure
    }
  }

  public var message: String {
    switch self {
    case .unknownBackend(let name, _): "no backend '\(name)'"
    case .backendExists(let name): "backend '\(name)' already exists"
    case .duplicateBackend(let name): "backend '\(name)' is defined twice"
    case .duplicateRule(let directory): "the rule for '\(directory)' is defined twice"
    case .noBackends: "no backend is set up yet"
    case .backendNeeded(let names):
      "there are several backends (\(names.prefix(6).joined(separator: ", "))\(names.count > 6 ? ", ..." : ""))"
    }
  }

  public var fix: String? {
    switch self {
    case .unknownBackend(_, let suggestions) where !suggestions.isEmpty:
      "did you mean \(Suggestions.phrase(suggestions))?"
    case .unknownBackend:
      "see them with `accounts backend list`, or add one with `accounts backend add NAME --adapter A`"
    case .backendExists(let name):
      "remove it first with `accounts backend remove \(name)`, or pick another name"
    case .duplicateBackend, .duplicateRule: nil
    case .noBackends: "add one with `accounts backend add NAME --adapter A --set base_url=URL`"
    case .backendNeeded: "say which with --backend NAME or USER@BACKEND"
    }
  }
}
