import AccountsContract
import AccountsCore
import AccountsSystem
import SecretMemory

/// `accounts backend set NAME KEY=VALUE... [--unset KEY]`: a backend's settings changed in
/// place, the result checked against the adapter's declaration as `backend add` checks a new one.
enum BackendSetCommand {
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
    arguments: [BackendCommands.name, settings], options: [unset, secret, BackendCommands.secretStdin],
    examples: [
      ("accounts backend set corp check_path=me logout_path=logout", "check sessions with GET me, log out on the backend"),
      ("accounts backend set corp --unset check_path", "back to trusting the local expiry"),
      ("accounts backend set corp git_host=git.corp.example", "git asks accounts for this host's token"),
      ("printf '%s\\n' \"$KEY\" | accounts backend set sig --secret-stdin private_key", "a new private key, from stdin"),
      ("accounts backend set corp lease_store=redis://ci-redis:6379/2", "lease corp's accounts through a shared Redis"),
    ],
    secretInput: .secretSetting,
    handler: run)

  static let settings = ArgumentSpec(
    "KEY=VALUE", completion: .setting, optional: true, variadic: true, valueKind: .setting,
    help: "a non-secret setting to give a new value, e.g. check_path=me")
  static let unset = OptionSpec(
    "unset", value: "KEY", repeatable: true, completion: .unsettableSetting,
    help: "remove the setting KEY (the adapter's default applies again; a secret one leaves the keyring)")
  static let secret = BackendCommands.secret(help: "ask for a new value of the secret setting NAME without echo")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let name = invocation.argument(BackendCommands.name)!
    let configuration = try environment.config.load()
    let backend = try configuration.backend(named: name)  // "did you mean 'corp'?"
    var request = BackendSettingsRequest(
      given: invocation.settings(settings), unset: Set(invocation.values(unset)),
      secrets: BackendCommands.secretNames(invocation, secret))
    request.hostNames = environment.hostNames
    try request.checkChange(of: name)  // before the adapter is loaded
    let description = try environment.adapterHost().describe(backend.adapter, in: environment.adapterSearchPath)
    let result = try request.applied(to: backend, adapter: description)

    let newSecrets = try BackendCommands.readSecrets(Set(request.secrets).sorted(), invocation, environment) { key in
      let label = description.setting(named: key)?.label ?? OwnBackendSetting.label(key)
      return "new \(key) for backend \(name) (\(Names.printable(label))): "
    }
    // The adapter checks the whole result, so the secrets kept are read for it too.
    var allSecrets = newSecrets
    for key in result.kept {
      guard let value = try environment.ledger.claimedSecret(.setting(key, backend: name), recorded: configuration.secretService)
      else {
        throw CommandError(
          .loginRequired, "backend \(name): its secret setting \(key) is not in the keyring",
          fix: "give it again with `accounts backend set \(name) --secret \(key)`")
      }
      allSecrets[key] = value
    }
    try BackendSettingsRequest.validate(
      AdapterRequest(
        adapter: backend.adapter, backend: name, settings: result.settings, operation: .validate,
        timeout: try environment.networkTimeout()),
      secretSettings: allSecrets, host: environment.adapterHost(), searchPath: environment.adapterSearchPath)

    let change = try environment.ledger.changeBackend(
      name, settings: request.given, secretSettings: newSecrets, unset: request.unset)
    if invocation.json {
      let accounts = try environment.index.load().accounts.filter { $0.id.backend == name }.count
      environment.output.writeJSON(BackendCommands.json(change.after, accounts: accounts))
    }
    for line in request.report(change) { environment.output.message("backend \(name): \(line)") }
  }
}
