import AccountsContract
import AccountsSystem
import SecretMemory

/// What `backend add` and `backend set` are asked to do to a backend's settings, checked
/// against its adapter's declaration before any secret is asked for: the rules both commands
/// follow, written once.
public struct BackendSettingsRequest: Sendable {
  /// KEY=VALUE, by key.
  public var given: [String: String]
  /// `--unset KEY` (`set` only).
  public var unset: Set<String>
  /// The secret settings to ask for (`--secret NAME`, and `--secret-stdin NAME` last).
  public var secrets: [String]
  /// Names the ASCII form of a non-ASCII base_url host in its refusal (`BackendSettingsCheck`).
  public var hostNames: (any HostNameConversion)?

  public init(given: [String: String] = [:], unset: Set<String> = [], secrets: [String] = []) {
    self.given = given
    self.unset = unset
    self.secrets = secrets
  }

  /// KEY=VALUE words (`--set` values, `option` "--set ", or `backend set`'s words, "") as a
  /// dictionary: a valid setting name each, no key twice.
  public static func parseSettings(_ pairs: [String], option: String = "--set ") throws(CommandError) -> [String: String] {
    var settings: [String: String] = [:]
    for pair in pairs {
      guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
        throw .usage("\(option)'\(Names.printable(pair))' is not KEY=VALUE", fix: "write it as \(option)base_url=https://...")
      }
      let key = String(pair[..<equals])
      guard AdapterSetting.isValidName(key) else {
        throw .usage(
          "'\(Names.printable(key))' is not a valid setting name",
          fix: "use lowercase letters, digits and '_', as `accounts adapters` shows them")
      }
      guard settings[key] == nil else { throw .usage("\(option)\(key) is given twice") }
      settings[key] = String(pair[pair.index(after: equals)...])
    }
    return settings
  }

  /// The settings a backend on `adapter` is given by value (KEY=VALUE): the adapter's that are
  /// not secret, then accounts' own that it does not declare. Completion offers them.
  public static func settingsByValue(on adapter: AdapterDescription) -> [String] {
    adapter.settings.filter { !$0.isSecret }.map(\.name)
      + OwnBackendSetting.all.filter { adapter.setting(named: $0) == nil }
  }

  /// The secret settings `--secret` and `--secret-stdin` may name on a backend of `adapter`:
  /// the adapter's secret ones, then accounts' own.
  public static func secretSettings(on adapter: AdapterDescription) -> [String] {
    let declared = adapter.settings.filter(\.isSecret).map(\.name)
    return declared + OwnBackendSetting.secrets.filter { !declared.contains($0) }
  }

  /// The settings `--unset` may name on `backend`: those it has, secret ones included, less
  /// those `adapter` requires. Completion offers them.
  public static func unsettable(of backend: BackendConfig, adapter: AdapterDescription) -> [String] {
    names(of: backend).filter { required($0, by: adapter) == nil }.sorted()
  }

  /// The names of the settings `backend` has, secret ones included.
  static func names(of backend: BackendConfig) -> [String] { Array(backend.settings.keys) + backend.secretSettings }

  /// The setting `key` when `adapter` requires it (it cannot be unset), else nil.
  static func required(_ key: String, by adapter: AdapterDescription) -> AdapterSetting? {
    adapter.setting(named: key).flatMap { $0.isOptional ? nil : $0 }
  }

  /// Every secret asked for is one the adapter declares secret, or one of accounts' own.
  public func checkSecretNames(against adapter: AdapterDescription) throws(CommandError) {
    let allowed = Self.secretSettings(on: adapter)
    for wanted in secrets where !allowed.contains(wanted) {
      throw .usage(
        "adapter \(adapter.name) has no secret setting '\(Names.printable(wanted))'",
        fix: "its settings: `accounts adapters \(adapter.name)`")
    }
  }

  /// `backend add`: the secret settings a new backend asks for, with their labels: every one
  /// its adapter requires and the optional ones asked for, then accounts' own asked for
  /// (lease_store_password). Throws the first problem of the settings given.
  public func newBackend(_ name: String, adapter: AdapterDescription) throws -> [(name: String, label: String)] {
    try checkSecretNames(against: adapter)
    let check = BackendSettingsCheck(adapter: adapter, hostNames: hostNames)
    var asked = check.secretsToAsk(wanted: secrets).map { (name: $0.name, label: $0.label) }
    for own in OwnBackendSetting.secrets where secrets.contains(own) && !asked.contains(where: { $0.name == own }) {
      asked.append((own, OwnBackendSetting.label(own)))
    }
    let problems = check.problems(settings: given, secretNames: asked.map(\.name))
    if let first = problems.first { throw Self.refusal(name, adapter.name, first, count: problems.count, settings: given) }
    return asked
  }

  /// `backend set`: what the change leaves of `backend`, checked as a new backend is: its
  /// settings, its secret settings' names, and those of them kept from the keyring (which the
  /// adapter checks with the rest). Refuses no change at all, a key both given and unset, an
  /// unset of a setting the backend lacks or its adapter requires.
  public func applied(
    to backend: BackendConfig, adapter: AdapterDescription
  ) throws -> (settings: [String: String], secretNames: Set<String>, kept: [String]) {
    let name = backend.name
    try checkChange(of: name)
    let asked = Set(secrets)
    try checkSecretNames(against: adapter)
    try checkUnset(of: backend, adapter)
    var settings = backend.settings
    settings.merge(given) { $1 }
    for key in unset { settings[key] = nil }
    let secretNames = Set(backend.secretSettings).subtracting(unset).union(asked)
    let problems = BackendSettingsCheck(adapter: adapter, hostNames: hostNames).problems(settings: settings, secretNames: secretNames.sorted())
    if let first = problems.first {
      var refusal = Self.refusal(name, adapter.name, first, count: problems.count, settings: settings)
      if case .unknown(let key, _) = first, given[key] == nil {
        refusal.fix = "remove it with `accounts backend set \(name) --unset \(key)`"  // not one given now
      } else if case .missingSecret(let key, _) = first {
        refusal.fix = "give it with `accounts backend set \(name) --secret \(key)`"
      }
      throw refusal
    }
    let kept = secretNames.subtracting(asked).filter { !OwnBackendSetting.isOwnSecret($0) }.sorted()
    return (settings, secretNames, kept)
  }

  /// `backend set`'s checks that need no adapter: some change at all, and no key both given (or
  /// asked for) and unset.
  public func checkChange(of name: String) throws(CommandError) {
    guard !given.isEmpty || !unset.isEmpty || !secrets.isEmpty else {
      throw .usage(
        "backend set \(name): no change given",
        fix: "give KEY=VALUE, --unset KEY, --secret NAME or --secret-stdin NAME "
          + "(`accounts backend show \(name)` shows the settings)")
    }
    for key in unset.sorted() where given[key] != nil || secrets.contains(key) {
      throw .usage("\(Names.printable(key)) is both given a value and unset", fix: "give one of them")
    }
  }

  /// Every KEY of `--unset` is one the backend has, and not one its adapter requires.
  func checkUnset(of backend: BackendConfig, _ adapter: AdapterDescription) throws(CommandError) {
    let present = Self.names(of: backend)
    for key in unset.sorted() {
      guard present.contains(key) else {
        let suggestions = Suggestions.closest(to: key, in: present)
        throw .usage(
          "backend \(backend.name) has no setting '\(Names.printable(key))' to unset"
            + (suggestions.isEmpty ? "" : "; did you mean \(Suggestions.phrase(suggestions))?"),
          fix: "`accounts backend show \(backend.name)` shows its settings")
      }
      if let setting = Self.required(key, by: adapter) {
        throw .usage(
          "\(key) is required by adapter \(backend.adapter) and cannot be unset",
          fix: setting.isSecret
            ? "replace it with `accounts backend set \(backend.name) --secret \(key)`"
            : "give it another value with `accounts backend set \(backend.name) \(key)=VALUE`")
      }
    }
  }

  /// The first of `count` problems as the command's usage error.
  static func refusal(
    _ backend: String, _ adapter: String, _ first: BackendSettingsCheck.Problem, count: Int, settings: [String: String]
  ) -> CommandError {
    var fix = "`accounts adapters \(adapter)` lists its settings"
    if case .invalidValue(let key, _) = first,
      let own = OwnBackendSetting.fix(key, value: settings[key] ?? "", backend: backend)
    {
      fix = own
    }
    return CommandError.usage(
      "backend \(backend): \(first)" + (count > 1 ? " (and \(count - 1) more problem\(count == 2 ? "" : "s"))" : ""),
      fix: fix)
  }

  /// One line per setting a `backend set` changed; a secret by name only.
  public func report(_ change: Ledger.BackendChange) -> [String] {
    func was(_ key: String) -> String {
      change.before.settings[key].map { "was \(Names.printable($0))" } ?? "was not set"
    }
    var lines: [String] = []
    for key in given.keys.sorted() {
      let value = given[key]!
      lines.append(
        "\(key)=\(Names.printable(value))" + (change.before.settings[key] == value ? " (unchanged)" : " (\(was(key)))"))
    }
    for key in Set(secrets).sorted() {
      lines.append(key + (change.before.secretSettings.contains(key) ? " replaced in the keyring" : " stored in the keyring"))
    }
    for key in unset.sorted() {
      if change.leftInKeyring.contains(key) {
        lines.append("\(key) unset; its keyring item could not be deleted yet and goes with the next change")
      } else if change.before.secretSettings.contains(key) {
        lines.append("\(key) unset and deleted from the keyring")
      } else {
        lines.append("\(key) unset (\(was(key)))")
      }
    }
    return lines
  }

  /// The adapter's own check of the values (ACC_OP_VALIDATE: no network), as its usage error.
  public static func validate(
    _ request: AdapterRequest, secretSettings: [String: SecretBytes], host: any AdapterHosting,
    searchPath: AdapterSearchPath
  ) throws {
    switch try host.run(request, secretSettings: secretSettings, in: searchPath) {
    case .ok: return
    case .backendError(let message):
      throw CommandError.usage(
        "backend \(request.backend): \(message)", fix: "`accounts adapters \(request.adapter)` lists its settings")
    case .adapterFailed(let message): throw CommandError(.adapterFailed, message)
    default:
      throw CommandError(.adapterFailed, "adapter \(request.adapter) gave an unexpected answer to the settings check")
    }
  }
}
