import AccountsContract
import AccountsCore
import AccountsSystem
import SecretMemory

/// `accounts backend add NAME --adapter A [--set KEY=VALUE...]`: a new login target, its
/// settings checked against what the adapter declares, its secret settings asked for.
enum BackendAddCommand {
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
    arguments: [name], options: [adapter, set, BackendCommands.secretStdin, secret],
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

  static let name = ArgumentSpec("NAME", help: "a name for the backend, e.g. corp")
  static let adapter = OptionSpec(
    "adapter", value: "ADAPTER", required: true, completion: .adapter,
    help: "the adapter that speaks the backend's protocol (see `accounts adapters`)")
  static let set = OptionSpec(
    "set", value: "KEY=VALUE", repeatable: true, completion: .setting, kind: .setting,
    help: "a non-secret setting the adapter declares, e.g. base_url=https://api.corp.example")
  static let secret = BackendCommands.secret(
    help: "also ask for the optional secret setting NAME (required ones are always asked for)")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let backendName = invocation.argument(name)!
    try Names.checkBackend(backendName)
    let adapterName = invocation.value(adapter)!
    guard Names.isBackendName(adapterName) else {
      throw CommandError.usage("'\(Names.printable(adapterName))' is not a valid adapter name")
    }
    var request = BackendSettingsRequest(
      given: invocation.settings(set), secrets: BackendCommands.secretNames(invocation, secret))
    request.hostNames = environment.hostNames
    let settings = request.given
    if try environment.config.load()[backendName] != nil {
      throw ConfigurationError.backendExists(backendName)  // before asking for any secret
    }
    let host = try environment.adapterHost()
    let searchPath = environment.adapterSearchPath
    let description = try host.describe(adapterName, in: searchPath)
    let asked = try request.newBackend(backendName, adapter: description)

    let labels = Dictionary(asked.map { ($0.name, $0.label) }, uniquingKeysWith: { first, _ in first })
    let secrets = try BackendCommands.readSecrets(asked.map(\.name), invocation, environment) { name in
      "\(name) for backend \(backendName) (\(Names.printable(labels[name] ?? name))): "
    }
    try BackendSettingsRequest.validate(
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
}
