import AccountsCore

/// `accounts remove USER`: forget an account and every secret of it.
enum RemoveCommand {
  static let user = ArgumentSpec(
    "USER", completion: .account, help: "the account: USER or USER@BACKEND, spelled out in full")

  static let spec = CommandSpec(
    "remove", aliases: ["forget"],
    summary: "forget an account and every secret of it",
    discussion: """
      Deletes the account's remembered password, token and other secrets from the Secret \
      Service, then removes it from the index (and from the auto-login slot if it held it). \
      USER must be spelled out: a prefix is not enough for a command that deletes.
      """,
    arguments: [user],
    examples: [("accounts remove bob", "forget bob and his secrets")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let book = try environment.index.load()
    let id = try environment.resolveAccount(
      invocation.argument(user)!, invocation, in: book, allowPrefix: false)
    try sweepSecrets(of: book[id]!, environment)
    try environment.index.update { $0.remove(id) }
    if invocation.json { environment.output.writeJSON(.object(["removed": .array([.string(id.description)])])) }
    environment.output.message("forgot \(id)")
  }

  /// Deletes every secret of `account`. When the index says nothing was stored, a keyring that
  /// cannot be reached is no reason to keep the account: the sweep is then best effort.
  static func sweepSecrets(of account: Account, _ environment: Environment) throws {
    do {
      try environment.secretStore().deleteAll(
        backend: account.id.backend, account: account.id.user)
    } catch let error as SecretStoreError where !account.remembered && account.token == nil {
      _ = error
    }
  }
}
