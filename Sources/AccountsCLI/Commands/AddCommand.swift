import AccountsContract
import AccountsCore
import AccountsSystem
import SecretMemory

/// `accounts add USER`: save an account, with or without its password; no network.
enum AddCommand {
  static let spec = CommandSpec(
    "add",
    summary: "save an account",
    discussion: """
      Saves USER on a backend without going to the network. Without --remember no password \
      is stored: a later login asks for it. With --remember the password is asked for on the \
      terminal without echo (or read from stdin with --password-stdin) and kept in the \
      Secret Service, never in a file.
      """,
    arguments: [user], options: [remember, SharedArguments.passwordStdin],
    examples: [
      ("accounts add bob", "save bob on the only backend, without a password"),
      ("printf '%s\\n' \"$PW\" | accounts add alice@corp --remember --password-stdin",
       "save alice on corp and remember her password"),
    ],
    handler: run)

  static let user = ArgumentSpec(
    "USER", help: "the user name, or USER@BACKEND when there are several backends")
  static let remember = OptionSpec(
    "remember",
    help: "remember the password in the Secret Service (asked for without echo, or read with --password-stdin)")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let id = try environment.newAccountID(invocation.argument(user)!, invocation)
    let remembers = invocation.isSet(remember)
    if invocation.isSet(SharedArguments.passwordStdin), !remembers {
      throw CommandError.usage(
        "--password-stdin without --remember: the password would not be stored",
        fix: "add --remember, or leave out --password-stdin")
    }
    if try environment.index.load()[id] != nil { throw AccountBookError.alreadySaved(id) }  // before asking
    let password: SecretBytes? =
      !remembers ? nil
      : invocation.isSet(SharedArguments.passwordStdin)
        ? try environment.terminal.readSecretFromStandardInput(what: "password")
        : try environment.terminal.promptSecret("Password for \(id): ", what: "password")
    let now = environment.now()
    try environment.ledger.add(Account(id: id, addedAt: now), password: password)
    if invocation.json {
      let book = try environment.index.load()
      if let account = book[id] {
        environment.output.writeJSON(AccountPresentation.json(account, in: book, now: now))
      }
    }
    environment.output.message(
      "saved \(id)" + (remembers ? " and remembered its password" : " without a password"))
  }
}
