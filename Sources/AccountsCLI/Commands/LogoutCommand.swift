import AccountsCore

/// `accounts logout [USER]`
enum LogoutCommand {
  static let spec = CommandSpec(
    "logout",
    summary: "end the session; the remembered password stays",
    discussion: """
      Deletes the session token and empties the auto-login slot if the account held it, then \
      tells the backend (when its adapter has a logout path). The remembered password stays. \
      When the backend cannot be told, or there is no session, the session still ends here, \
      with a warning, and the exit status is 0; an adapter that crashes while telling it ends \
      the command with exit 9, the session ended here all the same. A session with a refresh \
      token (oauth2) is told first: the provider revokes the refresh token and the token \
      (RFC 7009) before they are forgotten here, so none stays live that nobody could revoke; \
      when it cannot be told they are forgotten all the same, with a warning. Then the logout hooks run \
      (`accounts hooks`) unless --no-hooks.

      An account another holder leases (`accounts leases`) is refused with exit 1, naming the \
      holder: its session is the holder's. --force logs it out anyway.

      The account is, first match wins: \(AccountChoice.orderText). \(AccountChoice.pickerText)
      """,
    picksAccount: true, options: [force, SessionArguments.timeout, HookArguments.noHooks],
    examples: [("accounts logout", "log the auto-login account out")],
    handler: run)

  static let force = OptionSpec(
    "force", help: "log out even an account another holder leases (its holder's session ends)")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let id = try environment.pickAccountOrChoose(invocation, in: try environment.index.load(), prompt: "log out> ")
    var flow = try environment.sessionFlow(invocation)
    flow.forced = invocation.isSet(force)
    flow.forcing = .thisCommand
    let warnings = try flow.logOut(id)
    for warning in warnings { environment.output.warning("\(warning)") }
    environment.output.message("\(id): logged out")
    environment.runHooks(after: .logout, for: id, invocation)
  }
}
