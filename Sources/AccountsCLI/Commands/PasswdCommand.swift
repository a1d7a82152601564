import AccountsCore

/// `accounts passwd USER`: replace (or start) remembering an account's password.
enum PasswdCommand {

  static let spec = CommandSpec(
    "passwd",
    summary: "replace the remembered password",
    discussion: """
      Stores a new password for the account in the Secret Service, replacing the remembered \
      one, and marks the account as remembered. The password is asked for without echo, or \
      read from stdin with --password-stdin. Nothing is sent to the backend.
      """,
    arguments: [SharedArguments.account], options: [SharedArguments.passwordStdin],
    examples: [("printf 'new\\n' | accounts passwd alice --password-stdin", "remember alice's new password")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let book = try environment.index.load()
    let id = try environment.resolveAccount(invocation.argument(SharedArguments.account)!, invocation, in: book)
    let password =
      invocation.isSet(SharedArguments.passwordStdin)
      ? try environment.terminal.readSecretFromStandardInput(what: "password")
      : try environment.terminal.promptSecret("New password for \(id): ", what: "password")
    try environment.ledger.replacePassword(of: id, with: password)
    if invocation.json {
      let book = try environment.index.load()
      environment.output.writeJSON(
        AccountPresentation.json(book[id]!, in: book, now: environment.now()))
    }
    environment.output.message("remembered a new password for \(id)")
  }
}
