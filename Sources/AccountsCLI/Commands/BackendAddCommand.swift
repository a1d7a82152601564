import AccountsContract
import AccountsCore
import AccountsSystem
import SecretMemory

/// `accounts backend add NAME --adapter A [--set KEY=VALUE...]`: a new login target, its
/// settings checked against what the adapter declares, its secret settings asked for.
enum BackendAddCommand {
  static let name = ArgumentSpec("NAME", help: "a name for the backend, e.g. corp")
  static let adapter = OptionSpec(
    "adapter", value: "ADAPTER", required: true, completion: .adapter,
    help: "the adapter that speaks the backend's protocol (see `accounts adapters`)")
  static let set = OptionSpec(
    "set", value: "KEY=VALUE", repeatable: true,
    help: "a non-secret setting the adapter declares, e.g. base_url=https://api.corp.example")
  static let secretStdin = OptionSpec(
    "secret-stdin", value: "NAME",
    help: "read the secret setting NAME from stdin (its first line) instead of asking for it")
  static let secret = OptionSpec(
    "secret", value: "NAME", repeatable: true,
    help: "also ask for the optional secret setting NAME (required ones are always asked for)")

  static let spec = CommandSpec(
    "add",
    summary: "add a backend",
    discussion: """
      Records a backend: its adapter and the adapter's settings, checked against what the \
      adapter declares (`accounts adapters ADAPTER` lists them): an unknown or a missing \
      required setting is an error. Secret settings such as private_key are never given with \
      --set (they would show in the process list and shell history): each required one is \
      asked for without echo, or read from stdin with --secret-stdin NAME, and kept in the \
      Secret Service. The adapter then checks the values, without any network, before \
      anything is saved. Besides the adapter's settings every backend may have accounts' own \
      git_host: the host `accounts git-credential` answers git for (see there); lease_store \
      and lease_prefix, where `accounts lease` keeps this backend's leases (see `accounts \
      backend set`); and the secret lease_store_password, the Redis password, asked for with \
      --secret lease_store_password or read with --secret-stdin lease_store_password.
      """,
    arguments: [name], options: [adapter, set, secretStdin, secret],
    examples: [
      ("accounts backend add corp --adapter signed --set base_url=https://api.corp.example/api --set app_id=170ib799 --set ver=1.0",
       "a backend that signs every request; asks for private_key"),
      ("printf '%s\\n' \"$KEY\" | accounts backend add corp --adapter hmac --set base_url=https://id.corp.example --secret-stdin hmac_key",
       "the hmac key from stdin"),
      ("printf '%s\\n' \"$PW\" | accounts backend add ci --adapter plain --set base_url=https://api.corp.example --set lease_store=redis://ci-redis:6379/2 --secret-stdin lease_store_password",
       "leases through a shared Redis, its password from stdin"),
    ],
    secretInput: .secretSetting,
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let backendName = invocation.argument(name)!
    try Names.checkBackend(backendName)
    let adapterName = invocation.value(adapter)!
    guard Names.isBackendName(adapterName) else {
      throw CommandError.usage("'\(Names.printable(adapterName))' is not a valid adapter name")
    }
    let settings = try parseSettings(invocation.values(set))
    if try environment.config.load()[backendName] != nil {
      throw ConfigurationError.backendExists(backendName)  // before asking for any secret
    }
    let host = try environment.adapterHost()
    let searchPath = environment.adapterSearchPath
    let description = try host.describe(adapterName, in: searchPath)
    let check = BackendSettingsCheck(adapter: description)

    let fromStdin = invocation.value(secretStdin)
    let wanted = invocation.values(secret) + (fromStdin.map { [$0] } ?? [])
    for wantedName in wanted
    where description.setting(named: wantedName)?.isSecret != true && !OwnBackendSetting.isOwnSecret(wantedName) {
      throw CommandError.usage(
        "adapter \(adapterName) has no secret setting '\(Names.printable(wantedName))'",
        fix: "its settings: `accounts adapters \(adapterName)`")
    }
    // The adapter's secrets, then accounts' own ones wanted (lease_store_password).
    var asked = check.secretsToAsk(wanted: wanted).map { (name: $0.name, label: $0.label) }
    for own in OwnBackendSetting.secrets where wanted.contains(own) && !asked.contains(where: { $0.name == own }) {
      asked.append((own, OwnBackendSetting.label(own)))
    }
    let problems = check.problems(settings: settings, secretNames: asked.map(\.name))
    if let first = problems.first {
      var fix = "`accounts adapters \(adapterName)` lists its settings"
      if case .invalidValue(let key, _) = first,
        let own = OwnBackendSetting.fix(key, value: settings[key] ?? "", backend: backendName)
      {
        fix = own
      }
      throw CommandError.usage(
        "backend \(backendName): \(first)" + (problems.count > 1 ? " (and \(counted(problems.count - 1, "more problem")))" : ""),
        fix: fix)
    }

    var secrets: [String: SecretBytes] = [:]
    for setting in asked {
      if setting.name == fromStdin {
        secrets[setting.name] = try environment.terminal.readSecretFromStandardInput(what: setting.name)
      } else {
        secrets[setting.name] = try environment.terminal.promptSecret(
          "\(setting.name) for backend \(backendName) (\(Names.printable(setting.label))): ", what: setting.name,
          stdinOption: "--secret-stdin \(setting.name)")
      }
    }
    try validate(
      AdapterRequest(
        adapter: adapterName, backend: backendName, settings: settings, operation: .validate,
        timeout: try environment.networkTimeout()),
      secretSettings: secrets.filter { description.setting(named: $0.key) != nil }, host: host, searchPath: searchPath)

    let backend = BackendConfig(
      name: backendName, adapter: adapterName, settings: settings, secretSettings: Array(secrets.keys))
    try environment.ledger.addBackend(backend, secretSettings: secrets)
    if invocation.json { environment.output.writeJSON(BackendCommands.json(backend, accounts: 0)) }
    environment.output.message(
      "added backend \(backendName) (adapter \(adapterName))"
        + (secrets.isEmpty ? "" : "; \(secrets.keys.sorted().joined(separator: ", ")) in the keyring"))
  }

  /// `--set` values (or `backend set`'s words, `option` "") as a dictionary: KEY=VALUE each,
  /// no key twice.
  static func parseSettings(_ pairs: [String], option: String = "--set ") throws(CommandError) -> [String: String] {
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

  /// The adapter's own check of the values (ACC_OP_VALIDATE): no network.
  static func validate(
    _ request: AdapterRequest, secretSettings: [String: SecretBytes], host: AdapterHosting,
    searchPath: AdapterSearchPath
  ) throws {
    let outcome = try host.run(request, secretSettings: secretSettings, in: searchPath)
    switch outcome {
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
