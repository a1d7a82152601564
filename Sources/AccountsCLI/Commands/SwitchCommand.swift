import AccountsContract
import AccountsCore
import AccountsSystem

/// `accounts switch USER` / `accounts switch -` / `accounts switch` (the picker)
enum SwitchCommand {
  static let spec = CommandSpec(
    "switch",
    summary: "make an account the logged-in, auto-login one",
    discussion: """
      USER takes the auto-login slot: its valid session is reused (no network), else it logs \
      in with the remembered password, else with the password asked for on a terminal (exit \
      3 without one). The previous holder stays saved with its password and session. \
      `accounts switch -` goes back to the previous holder. Then the switch hooks run \
      (`accounts hooks`) unless --no-hooks.

      Without USER, on a terminal, a picker lists every account, most recently logged in \
      first, with its backend, remembered password and token: type to filter (the letters in \
      order, any case, over USER@BACKEND), Up/Down or Ctrl-P/Ctrl-N to move, Backspace to \
      edit, Enter to switch to the selected one; Esc or Ctrl-C leaves the terminal as it was \
      and exits 130. Without a terminal USER is required.
      """,
    arguments: [target],
    options: [SharedArguments.passwordStdin, SessionArguments.timeout, HookArguments.noHooks],
    examples: [
      ("accounts switch bob", "start as bob from now on"),
      ("accounts switch -", "back to the account before"),
      ("accounts switch", "pick the account on the terminal"),
    ],
    handler: run)

  static let target = ArgumentSpec(
    "USER", completion: .account, optional: true, pickedWhenAbsent: true,
    help: "the account to switch to, or - for the previous one; without it, pick one on the terminal")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let book = try environment.index.load()
    let id: AccountID
    switch invocation.argument(target) {
    case nil:
      guard environment.terminal.canPrompt else {
        throw CommandError.usage("`accounts switch` needs USER", fix: "usage: accounts switch USER")
      }
      id = try environment.chooseAccount(in: book, prompt: "switch to> ")
    case "-":
      guard let previous = book.previousAutoLogin else {
        throw CommandError(
          .usage, "there is no previous account to switch back to (none was switched from, or it was removed)",
          fix: "name the account: `accounts switch USER`")
      }
      id = previous
    case let query?:
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
