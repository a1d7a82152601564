import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsSystem

/// `accounts password USER`: autofill, the remembered password on stdout.
enum PasswordCommand {

  static let spec = CommandSpec(
    "password",
    summary: "print the remembered password (autofill)",
    discussion: """
      Prints the account's remembered password from the Secret Service, followed by a newline. \
      Exits 3 when none is remembered, and 7 (never 3) when the keyring is locked or cannot be \
      reached. With --json: {"account": ..., "password": ...}.
      """,
    arguments: [SharedArguments.account],
    examples: [("accounts password alice | xclip -selection clipboard", "copy alice's password")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    try environment.ledger.adoptSecretServiceIfAsked()
    let book = try environment.index.load()
    let id = try environment.resolveAccount(invocation.argument(SharedArguments.account)!, invocation, in: book)
    let password = try environment.ledger.rememberedPassword(of: id, in: book)
    if invocation.json {
      guard password.isUTF8Text else {
        throw CommandError(
          .failure, "the password of \(id) is not UTF-8 text, so it cannot be printed as JSON",
          fix: "print it without --json")
      }
      environment.output.write("{\n  \"account\": ")
      environment.output.write(JSON.serialize(.string(id.description), pretty: false))
      environment.output.write(",\n  \"password\": ")
      environment.output.writeQuotedJSON(password)
      environment.output.write("\n}\n")
    } else {
      environment.output.write(password)
      environment.output.write("\n")
    }
  }
}
