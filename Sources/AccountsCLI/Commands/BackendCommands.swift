import AccountsCore
import AccountsJSON

/// `accounts backend add|list|show|remove`: the login targets.
enum BackendCommands {
  static let spec = CommandSpec(
    group: "backend",
    summary: "manage backends (login targets)",
    discussion: """
      A backend is a named login target: which adapter speaks its protocol, and the adapter's \
      settings (base_url, field names, app_id, ...). Settings live in config.json; secret \
      settings such as private_key live in the Secret Service. `accounts backend` alone lists \
      the backends.
      """,
    subcommands: [BackendAddCommand.spec, BackendListCommand.spec, BackendShowCommand.spec, BackendRemoveCommand.spec],
    defaultSubcommand: "list")

  static let name = ArgumentSpec("NAME", completion: .backend, help: "the backend's name")

  /// The `--json` object of a backend. Secret settings appear by name only.
  static func json(_ backend: BackendConfig, accounts: Int) -> JSONValue {
    var settings = JSONObject()
    for key in backend.settings.keys.sorted() { settings[key] = .string(backend.settings[key]!) }
    return .object([
      "name": .string(backend.name),
      "adapter": .string(backend.adapter),
      "settings": .object(settings),
      "secret_settings": .array(backend.secretSettings.map { .string($0) }),
      "accounts": .number(JSONNumber(accounts)),
    ])
  }
}

enum BackendAddCommand {
  static let name = ArgumentSpec("NAME", help: "a name for the backend, e.g. corp")
  static let adapter = OptionSpec(
    "adapter", value: "ADAPTER", required: true, completion: .adapter,
    help: "the adapter that speaks the backend's protocol (see `accounts adapters`)")
  static let set = OptionSpec(
    "set", value: "KEY=VALUE", repeatable: true,
    help: "a non-secret setting of the adapter, e.g. base_url=https://api.corp.example")

  static let spec = CommandSpec(
    "add",
    summary: "add a backend",
    discussion: """
      Records a backend: its adapter and the adapter's settings. Secret settings are never \
      given with --set (they would show in the process list and shell history, and land in \
      config.json): names such as private_key, hmac_key, password or anything ending in \
      _key, _secret, _password or _token are refused.
      """,
    arguments: [name], options: [adapter, set],
    examples: [
      ("accounts backend add corp --adapter signed --set base_url=https://api.corp.example --set app_id=170ib799",
       "a backend that signs every request"),
    ],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let backendName = invocation.argument(name)!
    try Names.checkBackend(backendName)
    let adapterName = invocation.value(adapter)!
    guard Names.isBackendName(adapterName) else {
      throw CommandError.usage("'\(Names.printable(adapterName))' is not a valid adapter name")
    }
    var settings: [String: String] = [:]
    for pair in invocation.values(set) {
      guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
        throw CommandError.usage(
          "--set '\(Names.printable(pair))' is not KEY=VALUE", fix: "write it as --set base_url=https://...")
      }
      let key = String(pair[..<equals])
      guard isSettingName(key) else {
        throw CommandError.usage(
          "'\(Names.printable(key))' is not a valid setting name",
          fix: "use letters, digits and '_', starting with a letter")
      }
      if looksSecret(key) {
        throw CommandError.usage(
          "'\(key)' looks like a secret, and --set would leave it in your shell history and config.json",
          fix: "leave it out: secret settings are asked for without echo and kept in the keyring, once the adapter declares them")
      }
      guard settings[key] == nil else { throw CommandError.usage("--set \(key) is given twice") }
      settings[key] = String(pair[pair.index(after: equals)...])
    }
    let backend = BackendConfig(name: backendName, adapter: adapterName, settings: settings)
    try environment.config.update { try $0.add(backend) }
    if invocation.json { environment.output.writeJSON(BackendCommands.json(backend, accounts: 0)) }
    environment.output.message("added backend \(backendName) (adapter \(adapterName))")
  }

  /// Setting names that hold secrets in every adapter we know of (the built-in ones declare
  /// `private_key` and `hmac_key`), refused before adapters can declare their own. Whole names
  /// and suffixes only: `password_field` and `token_header` are not secrets.
  static func looksSecret(_ key: String) -> Bool {
    let name = key.lowercased()
    return ["password", "passwd", "secret", "token", "key"].contains(name)
      || ["_key", "_secret", "_password", "_token"].contains { name.hasSuffix($0) }
  }

  /// A letter, then letters, digits and `_`; at most 64.
  static func isSettingName(_ key: String) -> Bool {
    guard let first = key.unicodeScalars.first, first.isASCIILetter, key.unicodeScalars.count <= 64
    else { return false }
    return key.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" }
  }
}

extension Unicode.Scalar {
  var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

enum BackendListCommand {
  static let spec = CommandSpec(
    "list", aliases: ["ls"],
    summary: "list the backends",
    discussion: "Each backend with its adapter, base_url and number of saved accounts.",
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let configuration = try environment.config.load()
    let book = try environment.index.load()
    func count(_ backend: BackendConfig) -> Int {
      book.accounts.reduce(0) { $0 + ($1.id.backend == backend.name ? 1 : 0) }
    }
    if invocation.json {
      environment.output.writeJSON(
        .array(configuration.backends.map { BackendCommands.json($0, accounts: count($0)) }))
      return
    }
    guard !configuration.backends.isEmpty else {
      environment.output.message(
        "no backends yet; add one with `accounts backend add NAME --adapter A --set base_url=URL`")
      return
    }
    var rows = [["NAME", "ADAPTER", "ACCOUNTS", "BASE_URL"]]
    for backend in configuration.backends {
      rows.append([backend.name, backend.adapter, String(count(backend)), backend.settings["base_url"] ?? "-"])
    }
    environment.output.write(TextTable.render(rows))
  }
}

enum BackendShowCommand {
  static let spec = CommandSpec(
    "show",
    summary: "show a backend's adapter and settings",
    discussion: "Secret settings are shown as (in keyring), never printed.",
    arguments: [BackendCommands.name],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let backend = try environment.config.load().backend(named: invocation.argument(BackendCommands.name)!)
    let accounts = try environment.index.load().accounts.filter { $0.id.backend == backend.name }.count
    if invocation.json {
      environment.output.writeJSON(BackendCommands.json(backend, accounts: accounts))
      return
    }
    var rows = [["backend", backend.name], ["adapter", backend.adapter], ["accounts", String(accounts)]]
    for key in (Array(backend.settings.keys) + backend.secretSettings).sorted() {
      rows.append([key, backend.settings[key] ?? "(in keyring)"])
    }
    environment.output.write(TextTable.render(rows))
  }
}

enum BackendRemoveCommand {
  static let force = OptionSpec(
    "force", help: "also forget the backend's saved accounts and their secrets")

  static let spec = CommandSpec(
    "remove", aliases: ["rm"],
    summary: "remove a backend and its secret settings",
    discussion: """
      Removes the backend from config.json and its secret settings from the Secret Service. \
      A backend that still has saved accounts is kept unless --force is given, which forgets \
      those accounts too, as `accounts remove` would.
      """,
    arguments: [BackendCommands.name], options: [force],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let backend = try environment.config.load().backend(named: invocation.argument(BackendCommands.name)!)
    let accounts = try environment.index.load().accounts.filter { $0.id.backend == backend.name }
    if !accounts.isEmpty, !invocation.isSet(force) {
      throw CommandError(
        .failure,
        "backend \(backend.name) still has \(counted(accounts.count, "saved account"))",
        fix: "remove them first, or add --force to forget them too")
    }
    for account in accounts {
      try RemoveCommand.sweepSecrets(of: account, environment)
      try environment.index.update { $0.remove(account.id) }
    }
    if !backend.secretSettings.isEmpty {
      try environment.secretStore().deleteSettings(backend: backend.name)
    }
    try environment.config.update { $0.remove(backend.name) }
    if invocation.json {
      environment.output.writeJSON(.object([
        "removed": .string(backend.name),
        "accounts_removed": .array(accounts.map { .string($0.id.description) }),
      ]))
    }
    environment.output.message(
      "removed backend \(backend.name)" + (accounts.isEmpty ? "" : " and forgot \(counted(accounts.count, "account"))"))
  }
}
