import AccountsContract
import AccountsCore
import AccountsSystem

/// `accounts clear`: forget every account.
enum ClearCommand {
  static let spec = CommandSpec(
    "clear",
    summary: "forget every account",
    discussion: """
      Forgets every saved account with its remembered password and token, as `remove` does \
      for one (sessions with a refresh token revoked at their provider first). Asks first on a terminal; without a terminal it needs --yes. Backends and \
      their settings stay. If the keyring fails part-way, the accounts whose secrets could \
      not be deleted stay saved; accounts without a remembered password or token are \
      forgotten even then, and their keyring items, if any, are swept later. Refuses while a \
      lease holds any account (`accounts leases`), naming the holder, unless --force.
      """,
    options: [yes, LeaseGuard.force],
    examples: [("accounts clear --yes", "start afresh")],
    handler: run)

  static let yes = OptionSpec("yes", short: "y", help: "do not ask for confirmation")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let accounts = try environment.index.load().accounts
    guard !accounts.isEmpty else {
      if invocation.json { environment.output.writeJSON(.object(["removed": .array([])])) }
      environment.output.message("no saved accounts")
      return
    }
    try LeaseGuard.check(accounts.map(\.id), invocation, environment)
    if !invocation.isSet(yes) {
      guard environment.terminal.canPrompt else {
        throw CommandError.usage(
          "refusing to forget every account without a terminal to ask", fix: "add --yes")
      }
      let count = accounts.count == 1 ? "the one saved account" : "all \(accounts.count) saved accounts"
      guard environment.terminal.confirm("Forget \(count), with their passwords and tokens?") else {
        environment.output.message("nothing forgotten")
        return
      }
    }
    environment.revokeRefreshTokens(of: accounts.map(\.id))
    let forgotten = try environment.ledger.forget(accounts.map(\.id))
    let swept = forgotten.removed
    let failure = forgotten.failure
    if invocation.json {
      environment.output.writeJSON(.object(["removed": .array(swept.map { .string($0.description) })]))
    }
    let kept = accounts.count - swept.count - forgotten.missing.count
    if failure == nil || !swept.isEmpty {
      environment.output.message(
        "forgot \(counted(swept.count, "account"))"
          + (kept > 0 ? "; kept \(kept) whose secrets could not be deleted" : ""))
    }
    if let failure { throw failure }
  }
}
