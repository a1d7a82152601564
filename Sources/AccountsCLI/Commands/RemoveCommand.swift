import AccountsCore
import AccountsSystem

/// `accounts remove USER`: forget an account and every secret of it.
enum RemoveCommand {
  static let spec = CommandSpec(
    "remove", aliases: ["forget"],
    summary: "forget an account and every secret of it",
    discussion: """
      Deletes the account's remembered password, token and other secrets from the Secret \
      Service, then removes it from the index (and from the auto-login slot if it held it). \
      USER must be spelled out: a prefix is not enough for a command that deletes. An account \
      held by a lease (`accounts leases`) is refused, naming its holder, unless --force. A \
      session with a refresh token (oauth2) is first revoked at its provider, since nobody \
      could revoke it once forgotten; a provider that cannot be told is a warning.

      With KeePassXC as the Secret Service, the deleted entries go to its Recycle Bin and old \
      passwords stay in each entry's history: clear "Use recycle bin" and limit history to 0 \
      items in KeePassXC's Database Settings to have them gone (see KEEPASSXC in the manual).
      """,
    arguments: [user],
    options: [LeaseGuard.force],
    examples: [("accounts remove bob", "forget bob and his secrets")],
    handler: run)

  static let user = ArgumentSpec(
    "USER", completion: .account, help: "the account: USER or USER@BACKEND, spelled out in full")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let book = try environment.index.load()
    let query = invocation.argument(user)!
    let id = try environment.resolveAccount(query, invocation, in: book, allowPrefix: false)
    try LeaseGuard.check([id], invocation, environment)
    environment.revokeRefreshTokens(of: [id])
    let forgotten = try environment.ledger.forget([id])
    guard forgotten.removed == [id] else {
      if let failure = forgotten.failure { throw failure }
      throw AccountLookupError.unknown(query, backend: invocation.backend, suggestions: [])  // removed meanwhile
    }
    if invocation.json { environment.output.writeJSON(.object(["removed": .array([.string(id.description)])])) }
    environment.output.message("forgot \(id)")
    // The rules stay (commands there now fail naming the rule); say so while it is fresh.
    for rule in (try? environment.config.load().rules) ?? [] where rule.account == id {
      environment.output.message(
        "the rule for \(RulePaths.display(rule.directory, home: RulePaths.home(environment))) still names \(id); "
          + "remove it with `accounts rule remove \(shellWord(rule.directory))`")
    }
  }
}
