import AccountsCore
import AccountsJSON

/// `accounts backend test NAME USER`: one LOGIN (then LOGOUT) through the adapter, to try a
/// backend's settings; stores nothing.
enum BackendTestCommand {
  static let user = ArgumentSpec("USER", help: "the user name to log in as")

  static let spec = CommandSpec(
    "test",
    summary: "log in once through a backend's adapter, keeping nothing",
    discussion: """
      Logs USER in through the backend's adapter and, when that works, logs out again; \
      reports the outcome and how long the token would have been valid. Nothing is stored: \
      no account, no token, no password. The password is read from stdin with \
      --password-stdin, else taken from the keyring when USER is saved on the backend with a \
      remembered password, else asked for without echo. The exit status says what happened: \
      4 wrong password, 5 session ended, 6 upgrade required, 8 network or backend error, 9 \
      adapter failure.
      """,
    arguments: [BackendCommands.name, user], options: [SharedArguments.passwordStdin],
    examples: [
      ("printf '%s\\n' \"$PW\" | accounts backend test corp alice --password-stdin", "try corp's settings with alice"),
    ],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    try environment.ledger.adoptSecretServiceIfAsked()
    let backend = try environment.config.load().backend(named: invocation.argument(BackendCommands.name)!)
    let userName = invocation.argument(user)!
    try Names.checkUser(userName)
    let id = AccountID(user: userName, backend: backend.name)
    let host = try environment.adapterHost()
    let searchPath = environment.adapterSearchPath
    let description = try host.describe(backend.adapter, in: searchPath)
    let problems = BackendSettingsCheck(adapter: description)
      .problems(settings: backend.settings, secretNames: backend.secretSettings)
    if let first = problems.first {
      throw CommandError(.failure, "backend \(backend.name): \(first)", fix: "see `accounts backend show \(backend.name)`")
    }
    let secrets = try backend.secretSettingValues(environment)
    let password = try password(for: id, invocation, environment)
    let timeout = try environment.networkTimeout()

    let (outcome, token) = try host.run(
      AdapterRequest(
        adapter: backend.adapter, backend: backend.name, operation: .login, settings: backend.settings,
        user: userName, timeout: timeout),
      secrets: AdapterSecrets(password: password, settings: secrets), in: searchPath)
    guard case .ok(let success) = outcome else { throw outcome.failure("\(id)")! }

    let (logout, _) = try host.run(
      AdapterRequest(
        adapter: backend.adapter, backend: backend.name, operation: .logout, settings: backend.settings,
        user: userName, sessionValues: success.sessionValues, timeout: timeout),
      secrets: AdapterSecrets(token: token, settings: secrets), in: searchPath)
    let lifetime = Timestamp.lifetime(success.expiresIn)
    let expiresAt = lifetime.map { environment.now().adding(seconds: $0) }

    if invocation.json {
      environment.output.writeJSON(.object([
        "backend": .string(backend.name),
        "user": .string(userName),
        "outcome": .string("ok"),
        "token": .bool(token != nil),
        "expires_in": lifetime.map { .number(JSONNumber($0)) } ?? .null,
        "expires_at": expiresAt.map { .string($0.iso8601) } ?? .null,
        "session_values": .object(sessionValues(success)),
        "logout": .string(logout.name),
      ]))
    }
    let values = success.sessionValues.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
    var report = "\(id): logged in through adapter \(backend.adapter)"
    if !values.isEmpty { report += " (\(values.joined(separator: ", ")))" }
    if token == nil {
      report += "; no token came back"
    } else if let lifetime, let expiresAt {
      report += "; the token is valid for \(Duration.text(seconds: lifetime)) (until \(LocalTime.format(expiresAt)))"
    } else {
      report += "; the token's lifetime is unknown"
    }
    environment.output.message(report)
    if let failure = logout.failure("logout") {
      environment.output.message("warning: \(failure.message); nothing was stored, the token expires by itself")
    } else {
      environment.output.message("logged out again; nothing was stored")
    }
  }

  static func sessionValues(_ success: AdapterSuccess) -> JSONObject {
    var object = JSONObject()
    for key in success.sessionValues.keys.sorted() { object[key] = .string(success.sessionValues[key]!) }
    return object
  }

  /// --password-stdin, else the remembered password of USER@BACKEND, else the prompt.
  static func password(for id: AccountID, _ invocation: Invocation, _ environment: Environment) throws -> SecretBytes {
    if invocation.isSet(SharedArguments.passwordStdin) {
      return try environment.terminal.readSecretFromStandardInput(what: "password")
    }
    let book = try environment.index.load()
    if book[id]?.remembered == true, let remembered = try environment.claimedSecret(SecretKey(id, .password), recorded: book.secretService) {
      environment.output.message("using the remembered password of \(id)")
      return remembered
    }
    return try environment.terminal.promptSecret("Password for \(id): ", what: "password")
  }
}

extension BackendConfig {
  /// The backend's secret settings, from the keyring.
  func secretSettingValues(_ environment: Environment) throws -> [String: SecretBytes] {
    var values: [String: SecretBytes] = [:]
    guard !secretSettings.isEmpty else { return values }
    let recorded = try environment.config.load().secretService
    for settingName in secretSettings {
      guard let value = try environment.claimedSecret(.setting(settingName, backend: name), recorded: recorded) else {
        throw CommandError(
          .loginRequired, "backend \(name): its secret setting \(settingName) is not in the keyring",
          fix: "remove the backend and add it again (`accounts backend remove \(name)`)")
      }
      values[settingName] = value
    }
    return values
  }
}
