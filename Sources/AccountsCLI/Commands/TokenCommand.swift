import AccountsCore
import AccountsJSON

/// `accounts token [USER] [--check]`
enum TokenCommand {
  static let spec = CommandSpec(
    "token",
    summary: "print the session token for scripts",
    discussion: """
      Prints the account's session token and a newline, nothing else. The token is trusted \
      until its recorded expiry (no network); --check proves it with the backend first. An \
      expired session is logged in again once with the remembered password; without one the \
      token is cleared and the exit status is 5. With no session at all, it logs in like \
      `accounts login` (exit 3 when there is no password to log in with).
      """,
    picksAccount: true, options: [check, SharedArguments.passwordStdin, SessionArguments.timeout],
    examples: [("curl -H \"AuthorisedToken: $(accounts token)\" https://api.example/me", "call an API as the current account")],
    handler: run)

  static let check = OptionSpec("check", help: "prove the session with the backend first")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let id = try environment.pickAccount(invocation, in: try environment.index.load()).id
    let session = try environment.sessionFlow(invocation).session(
      for: id, prove: invocation.isSet(check), password: try environment.passwordSource(invocation))
    if invocation.json {
      environment.output.write("{\n  \"account\": ")
      environment.output.write(JSON.serialize(.string(id.description), pretty: false))
      environment.output.write(",\n  \"expires_at\": ")
      environment.output.write(JSON.serialize(session.expiresAt.map { .string($0.iso8601) } ?? .null, pretty: false))
      environment.output.write(",\n  \"token\": ")
      environment.output.writeQuotedJSON(session.token)
      environment.output.write("\n}\n")
    } else {
      environment.output.write(session.token)
      environment.output.write("\n")
    }
  }
}
