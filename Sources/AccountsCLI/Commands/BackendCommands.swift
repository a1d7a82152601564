import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsSystem
import SecretMemory

/// `accounts backend add|list|show|set|test|remove`: the login targets.
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
    subcommands: [
      BackendAddCommand.spec, BackendListCommand.spec, BackendShowCommand.spec, BackendSetCommand.spec,
      BackendTestCommand.spec, BackendRemoveCommand.spec,
    ],
    defaultSubcommand: "list")

  static let name = ArgumentSpec("NAME", completion: .backend, help: "the backend's name")

  /// `--secret-stdin NAME`, for `backend add` and `backend set`.
  static let secretStdin = OptionSpec(
    "secret-stdin", value: "NAME", repeatable: true, completion: .secretSetting,
    help: "read the secret setting NAME from stdin (its first line; given twice or more, one line each, in that order) "
      + "instead of asking for it")

  /// `--secret NAME` (repeatable); `help` says what asking means for the command.
  static func secret(help: String) -> OptionSpec {
    OptionSpec("secret", value: "NAME", repeatable: true, completion: .secretSetting, help: help)
  }

  /// The secret settings named with `secret` and `--secret-stdin`, in that order.
  static func secretNames(_ invocation: Invocation, _ secret: OptionSpec) -> [String] {
    invocation.values(secret) + invocation.values(secretStdin)
  }

  /// Reads each setting in `names`: those named by `--secret-stdin` from stdin, a line each in
  /// the order the options gave them, the others asked for without echo with the prompt
  /// `prompt` gives for the name.
  static func readSecrets(
    _ names: [String], _ invocation: Invocation, _ environment: Environment, prompt: (String) -> String
  ) throws -> [String: SecretBytes] {
    let fromStdin = invocation.values(secretStdin)
    if let twice = Dictionary(grouping: fromStdin, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
      throw CommandError.usage("--secret-stdin \(Names.printable(twice)) is given twice", fix: "name each secret setting once")
    }
    var secrets: [String: SecretBytes] = [:]
    for name in fromStdin where names.contains(name) {
      secrets[name] = try environment.terminal.readSecretFromStandardInput(what: name)
    }
    for name in names where secrets[name] == nil {
      secrets[name] = try environment.terminal.promptSecret(prompt(name), what: name, stdinOption: "--secret-stdin \(name)")
    }
    return secrets
  }

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
    discussion: """
      Shows the backend's adapter and every setting the adapter declares: the value given, \
      the adapter's default, or (in keyring) for a secret setting, which is never printed. \
      Settings the adapter does not declare, or required ones that are missing, are reported \
      and make the exit status 1; an adapter that cannot be loaded makes it 9.
      """,
    arguments: [BackendCommands.name],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let backend = try environment.config.load().backend(named: invocation.argument(BackendCommands.name)!)
    let accounts = try environment.index.load().accounts.filter { $0.id.backend == backend.name }.count
    var description: AdapterDescription?
    var adapterError: Error?
    do {
      description = try environment.adapterHost().describe(backend.adapter, in: environment.adapterSearchPath)
    } catch {
      adapterError = error
    }
    let problems =
      description.map {
        BackendSettingsCheck(adapter: $0, hostNames: environment.hostNames).problems(settings: backend.settings, secretNames: backend.secretSettings)
      } ?? []

    if invocation.json {
      guard case .object(var object) = BackendCommands.json(backend, accounts: accounts) else { return }
      var defaults = JSONObject()
      for setting in description?.settings ?? [] where backend.settings[setting.name] == nil
        && !setting.isSecret && !setting.defaultValue.isEmpty
      {
        defaults[setting.name] = .string(setting.defaultValue)
      }
      object["defaults"] = .object(defaults)
      object["adapter_path"] = description.map { .string($0.path) } ?? .null
      object["adapter_version"] = description.map { .string($0.version) } ?? .null
      object["problems"] = .array(problems.map { .string($0.description) })
      environment.output.writeJSON(.object(object))
    } else {
      environment.output.write(table(backend, accounts: accounts, description: description))
    }
    if let adapterError { throw adapterError }
    if let first = problems.first {
      throw CommandError(
        .failure, "backend \(backend.name): \(first)" + (problems.count > 1 ? " (and \(counted(problems.count - 1, "more problem")))" : ""),
        fix: "edit \(environment.paths.config), or remove the backend and add it again")
    }
  }

  static func table(_ backend: BackendConfig, accounts: Int, description: AdapterDescription?) -> String {
    let adapter = description.map { "\(backend.adapter) \($0.version) (\($0.path))" } ?? backend.adapter
    var rows = [["backend", backend.name], ["adapter", adapter], ["accounts", String(accounts)]]
    var shown = Set<String>()
    for setting in description?.settings ?? [] {
      shown.insert(setting.name)
      if backend.secretSettings.contains(setting.name) {
        rows.append([setting.name, "(in keyring)"])
      } else if let value = backend.settings[setting.name] {
        rows.append([setting.name, value])
      } else if setting.isOptional, !setting.defaultValue.isEmpty {
        rows.append([setting.name, "(default: \(setting.defaultValue))"])
      } else if !setting.isOptional {
        rows.append([setting.name, "(missing)"])
      }
    }
    for key in (Array(backend.settings.keys) + backend.secretSettings).sorted() where !shown.contains(key) {
      let value = backend.secretSettings.contains(key) ? "(in keyring)" : backend.settings[key]!
      rows.append([key, description == nil ? value : "\(value) (not declared by the adapter)"])
    }
    return TextTable.render(rows)
  }
}

enum BackendRemoveCommand {
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

  static let force = OptionSpec(
    "force", help: "also forget the backend's saved accounts and their secrets")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let name = invocation.argument(BackendCommands.name)!
    _ = try environment.config.load().backend(named: name)  // "no backend 'crop'; did you mean 'corp'?"
    if invocation.isSet(force) {
      environment.revokeRefreshTokens(of: try environment.index.load().accounts.map(\.id).filter { $0.backend == name })
    }
    let (backend, forgotten) = try environment.ledger.removeBackend(name, forgettingAccounts: invocation.isSet(force))
    let accounts = forgotten.removed
    if invocation.json {
      environment.output.writeJSON(.object([
        "removed": .string(backend.name),
        "accounts_removed": .array(accounts.map { .string($0.description) }),
      ]))
    }
    environment.output.message(
      "removed backend \(backend.name)" + (accounts.isEmpty ? "" : " and forgot \(counted(accounts.count, "account"))"))
  }
}
