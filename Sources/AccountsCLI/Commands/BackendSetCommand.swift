import AccountsContract
import AccountsCore
import AccountsSystem
import SecretMemory

/// `accounts backend set NAME KEY=VALUE... [--unset KEY]`: a backend's settings changed in
/// place, the result checked against the adapter's declaration as `backend add` checks a new one.
enum BackendSetCommand {
  static let settings = ArgumentSpec(
    "KEY=VALUE", completion: .setting, optional: true, variadic: true,
    help: "a non-secret setting to give a new value, e.g. check_path=me")
  static let unset = OptionSpec(
    "unset", value: "KEY", repeatable: true,
    help: "remove the setting KEY (the adapter's default applies again; a secret one leaves the keyring)")
  static let secret = OptionSpec(
    "secret", value: "NAME", repeatable: true,
    help: "ask for a new value of the secret setting NAME without echo")

  static let spec = CommandSpec(
    "set",
    summary: "change a backend's settings",
    discussion: """
      Changes settings of an existing backend; the others stay as they are. The result is \
      checked against what the adapter declares, as `accounts backend add` checks a new \
      backend: an unknown setting or a bad value is an error, and a required setting cannot \
      be unset (give it another value instead). Secret settings such as private_key are never \
      given as KEY=VALUE: --secret NAME asks for a new value without echo, --secret-stdin NAME \
      reads it from stdin, and either replaces the one in the Secret Service. git_host is \
      accounts' own setting, allowed on every backend whatever its adapter: the host for which \
      `accounts git-credential` answers git with this backend's accounts. So are lease_store \
      (where `accounts lease` keeps this backend's leases: redis://[USER@]HOST[:PORT][/DB], \
      unix:///PATH or local), lease_prefix (the Redis key prefix, accounts:lease:BACKEND by \
      default) and the secret lease_store_password (the Redis password). Prints one line per \
      setting changed, never a secret's value.
      """,
    arguments: [BackendCommands.name, settings], options: [unset, secret, BackendAddCommand.secretStdin],
    examples: [
      ("accounts backend set corp check_path=me logout_path=logout", "check sessions with GET me, log out on the backend"),
      ("accounts backend set corp --unset check_path", "back to trusting the local expiry"),
      ("accounts backend set corp git_host=git.corp.example", "git asks accounts for this host's token"),
      ("printf '%s\\n' \"$KEY\" | accounts backend set sig --secret-stdin private_key", "a new private key, from stdin"),
      ("accounts backend set corp lease_store=redis://ci-redis:6379/2", "lease corp's accounts through a shared Redis"),
    ],
    secretInput: .secretSetting,
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let name = invocation.argument(BackendCommands.name)!
    let configuration = try environment.config.load()
    let backend = try configuration.backend(named: name)  // "did you mean 'corp'?"
    let given = try BackendAddCommand.parseSettings(invocation.arguments(settings), option: "")
    let removed = Set(invocation.values(unset))
    let fromStdin = invocation.value(BackendAddCommand.secretStdin)
    let asked = Set(invocation.values(secret) + (fromStdin.map { [$0] } ?? []))
    guard !given.isEmpty || !removed.isEmpty || !asked.isEmpty else {
      throw CommandError.usage(
        "backend set \(name): no change given",
        fix: "give KEY=VALUE, --unset KEY, --secret NAME or --secret-stdin NAME (`accounts backend show \(name)` shows the settings)")
    }
    for key in removed.sorted() where given[key] != nil || asked.contains(key) {
      throw CommandError.usage("\(Names.printable(key)) is both given a value and unset", fix: "give one of them")
    }

    let description = try environment.adapterHost().describe(backend.adapter, in: environment.adapterSearchPath)
    for wanted in asked.sorted()
    where description.setting(named: wanted)?.isSecret != true && !OwnBackendSetting.isOwnSecret(wanted) {
      throw CommandError.usage(
        "adapter \(backend.adapter) has no secret setting '\(Names.printable(wanted))'",
        fix: "its settings: `accounts adapters \(backend.adapter)`")
    }
    try checkUnset(removed, of: backend, description)

    var result = backend
    result.settings.merge(given) { $1 }
    for key in removed { result.settings[key] = nil }
    let secretNames = Set(backend.secretSettings).subtracting(removed).union(asked)
    let problems = BackendSettingsCheck(adapter: description).problems(
      settings: result.settings, secretNames: secretNames.sorted())
    if let first = problems.first {
      var fix = "`accounts adapters \(backend.adapter)` lists its settings"
      if case .unknown(let key, _) = first, given[key] == nil {
        fix = "remove it with `accounts backend set \(name) --unset \(key)`"  // not one given now
      } else if case .missingSecret(let key, _) = first {
        fix = "give it with `accounts backend set \(name) --secret \(key)`"
      } else if case .invalidValue(let key, _) = first,
        let own = OwnBackendSetting.fix(key, value: result.settings[key] ?? "", backend: name)
      {
        fix = own
      }
      throw CommandError.usage(
        "backend \(name): \(first)" + (problems.count > 1 ? " (and \(counted(problems.count - 1, "more problem")))" : ""),
        fix: fix)
    }

    var newSecrets: [String: SecretBytes] = [:]
    for key in asked.sorted() {
      let label = description.setting(named: key)?.label ?? OwnBackendSetting.label(key)
      newSecrets[key] =
        key == fromStdin
        ? try environment.terminal.readSecretFromStandardInput(what: key)
        : try environment.terminal.promptSecret(
          "new \(key) for backend \(name) (\(Names.printable(label))): ", what: key, stdinOption: "--secret-stdin \(key)")
    }
    // The adapter checks the whole result, so the secrets kept are read for it too.
    var allSecrets = newSecrets
    for key in secretNames.subtracting(asked).sorted() where !OwnBackendSetting.isOwnSecret(key) {
      guard let value = try environment.ledger.claimedSecret(.setting(key, backend: name), recorded: configuration.secretService)
      else {
        throw CommandError(
          .loginRequired, "backend \(name): its secret setting \(key) is not in the keyring",
          fix: "give it again with `accounts backend set \(name) --secret \(key)`")
      }
      allSecrets[key] = value
    }
    try BackendAddCommand.validate(
      AdapterRequest(
        adapter: backend.adapter, backend: name, settings: result.settings, operation: .validate,
        timeout: try environment.networkTimeout()),
      secretSettings: allSecrets, host: environment.adapterHost(), searchPath: environment.adapterSearchPath)

    let change = try environment.ledger.changeBackend(
      name, settings: given, secretSettings: newSecrets, unset: removed)
    if invocation.json {
      let accounts = try environment.index.load().accounts.filter { $0.id.backend == name }.count
      environment.output.writeJSON(BackendCommands.json(change.after, accounts: accounts))
    }
    for line in report(change, given: given, secrets: asked, unset: removed) {
      environment.output.message("backend \(name): \(line)")
    }
  }

  /// Every KEY of `--unset` is one the backend has, and not one its adapter requires.
  static func checkUnset(_ keys: Set<String>, of backend: BackendConfig, _ description: AdapterDescription) throws {
    let present = Array(backend.settings.keys) + backend.secretSettings
    for key in keys.sorted() {
      guard present.contains(key) else {
        let suggestions = Suggestions.closest(to: key, in: present)
        throw CommandError.usage(
          "backend \(backend.name) has no setting '\(Names.printable(key))' to unset"
            + (suggestions.isEmpty ? "" : "; did you mean \(Suggestions.phrase(suggestions))?"),
          fix: "`accounts backend show \(backend.name)` shows its settings")
      }
      if let setting = description.setting(named: key), !setting.isOptional {
        throw CommandError.usage(
          "\(key) is required by adapter \(backend.adapter) and cannot be unset",
          fix: setting.isSecret
            ? "replace it with `accounts backend set \(backend.name) --secret \(key)`"
            : "give it another value with `accounts backend set \(backend.name) \(key)=VALUE`")
      }
    }
  }

  /// One line per setting changed; a secret by name only.
  static func report(
    _ change: Ledger.BackendChange, given: [String: String], secrets: Set<String>, unset: Set<String>
  ) -> [String] {
    func was(_ key: String) -> String {
      change.before.settings[key].map { "was \(Names.printable($0))" } ?? "was not set"
    }
    var lines: [String] = []
    for key in given.keys.sorted() {
      let value = given[key]!
      lines.append(
        "\(key)=\(Names.printable(value))" + (change.before.settings[key] == value ? " (unchanged)" : " (\(was(key)))"))
    }
    for key in secrets.sorted() {
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
}
