import AccountsCore

/// `accounts switch USER` / `accounts switch -`
enum SwitchCommand {
  static let target = ArgumentSpec(
    "USER", completion: .account, help: "the account to switch to, or - for the previous one")

  static let spec = CommandSpec(
    "switch",
    summary: "make an account the logged-in, auto-login one",
    discussion: """
      USER takes the auto-login slot: its valid session is reused (no network), else it logs \
      in with the remembered password, else with the password asked for on a terminal (exit \
      3 without one). The previous holder stays saved with its password and session. \
      `accounts switch -` goes back to the previous holder. Then the switch hooks run \
      (`accounts hooks`) unless --no-hooks.
      """,
    arguments: [target],
    options: [SharedArguments.passwordStdin, SessionArguments.timeout, HookArguments.noHooks],
    examples: [
      ("accounts switch bob", "start as bob from now on"),
      ("accounts switch -", "back to the account before"),
    ],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let book = try environment.index.load()
    let query = invocation.argument(target)!
    let id: AccountID
    if query == "-" {
      guard let previous = book.previousAutoLogin else {
        throw CommandError(
          .usage, "there is no previous account to switch back to (none was switched from, or it was removed)",
          fix: "name the account: `accounts switch USER`")
      }
      id = previous
    } else {
      id = try environment.resolveAccount(query, invocation, in: book)
    }
    let flow = try environment.sessionFlow(invocation)
    let (session, reused) = try flow.switchTo(id, password: try environment.passwordSource(invocation))
    let how = reused ? "its session is" : "logged in; the session is"
    environment.output.message("switched to \(id): \(how) \(SessionText.validity(session))")
    if invocation.json { environment.output.writeJSON(SessionText.json(session, reused: reused)) }
    // A reused session's token was not read: read it only for a hook that asks for it.
    environment.runHooks(after: .switch, for: id, invocation) {
      try flow.session(for: id, prove: false, password: .rememberedOnly).token
    }
  }
}
