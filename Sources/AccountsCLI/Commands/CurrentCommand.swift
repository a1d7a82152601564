import AccountsContract
import AccountsCore
import AccountsSystem

/// `accounts current [--check]`: the account in the auto-login slot.
enum CurrentCommand {
  static let spec = CommandSpec(
    "current",
    summary: "show the account in the auto-login slot",
    discussion: """
      Prints the account that holds the auto-login slot, as USER@BACKEND. Exits 3 when the \
      slot is empty. Reads only the index, unless --check: then it also proves the account's \
      session with the backend, the way an app checks at start, logging in again once with \
      the remembered password when the session expired (see `accounts token` for the exit \
      statuses). With --json: the account's object as in `list --json`, or null.
      """,
    options: [check, SharedArguments.passwordStdin, SessionArguments.timeout],
    examples: [
      ("accounts current", "who starts logged in"),
      ("accounts current --check", "the app-start path: is that session still good?"),
    ],
    handler: run)

  static let check = OptionSpec(
    "check", help: "prove the session with the backend, logging in again once if it expired")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let book = try environment.index.load()
    guard let id = book.autoLogin, let account = book[id] else {
      if invocation.json { environment.output.write("null\n") }
      throw CommandError(.loginRequired, "the auto-login slot is empty")
    }
    if invocation.isSet(check) {
      _ = try environment.sessionFlow(invocation).session(
        for: id, prove: true, password: try environment.passwordSource(invocation))
    }
    if invocation.json {
      let account = invocation.isSet(check) ? try environment.index.load()[id] ?? account : account
      environment.output.writeJSON(AccountPresentation.json(account, in: book, now: environment.now()))
    } else {
      environment.output.writeText("\(id)\n")
    }
  }
}
