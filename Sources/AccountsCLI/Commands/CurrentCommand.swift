import AccountsCore

/// `accounts current`: the account in the auto-login slot.
enum CurrentCommand {
  static let spec = CommandSpec(
    "current",
    summary: "show the account in the auto-login slot",
    discussion: """
      Prints the account that holds the auto-login slot, as USER@BACKEND. Exits 3 when the \
      slot is empty. Reads only the index. With --json: the account's object as in `list \
      --json`, or null.
      """,
    examples: [("accounts current", "who starts logged in")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let book = try environment.index.load()
    guard let id = book.autoLogin, let account = book[id] else {
      if invocation.json { environment.output.write("null\n") }
      throw CommandError(.loginRequired, "the auto-login slot is empty")
    }
    if invocation.json {
      environment.output.writeJSON(AccountPresentation.json(account, in: book, now: environment.now()))
    } else {
      environment.output.writeText("\(id)\n")
    }
  }
}
