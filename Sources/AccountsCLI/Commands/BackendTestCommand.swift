import AccountsContract
import AccountsCore
import AccountsSystem
import AccountsJSON

/// `accounts backend test NAME USER`: one LOGIN (then LOGOUT) through the adapter, to try a
/// backend's settings; stores nothing.
enum BackendTestCommand {
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
    arguments: [BackendCommands.name, user], options: [SharedArguments.passwordStdin, SessionArguments.timeout],
    examples: [
      ("printf '%s\\n' \"$PW\" | accounts backend test corp alice --password-stdin", "try corp's settings with alice"),
    ],
    handler: run)

  static let user = ArgumentSpec("USER", help: "the user name to log in as")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let backend = try environment.config.load().backend(named: invocation.argument(BackendCommands.name)!)
    let userName = invocation.argument(user)!
    try Names.checkUser(userName)
    let id = AccountID(user: userName, backend: backend.name)
    var flow = try environment.sessionFlow(invocation)
    flow.forcing = .none  // a trial stores nothing: forcing a login elsewhere would not help it
    let (success, logout) = try flow.trial(
      userName, on: backend.name, password: try environment.passwordSource(invocation))
    let token = success.token
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
      report += "; the token is valid for \(DurationText.span(seconds: lifetime)) (until \(LocalTime.format(expiresAt)))"
    } else {
      report += "; the token's lifetime is unknown"
    }
    environment.output.message(report)
    if let failure = SessionFailure(logout, subject: "logout") {
      environment.output.warning("\(failure.message); nothing was stored, the token expires by itself")
    } else {
      environment.output.message("logged out again; nothing was stored")
    }
  }

  static func sessionValues(_ success: AdapterSuccess) -> JSONObject {
    var object = JSONObject()
    for key in success.sessionValues.keys.sorted() { object[key] = .string(success.sessionValues[key]!) }
    return object
  }
}
