import AccountsContract
import AccountsCore
import AccountsSystem

/// `accounts prompt`: a short segment for PS1.
enum PromptCommand {
  static let spec = CommandSpec(
    "prompt",
    summary: "print a short segment for the shell prompt",
    discussion: """
      Prints the account that a command would use in the current directory (ACCOUNTS_ACCOUNT, \
      else the longest directory rule, else the auto-login slot), by its shortest unambiguous \
      name (alice, or alice@corp when another backend has an alice), followed by ! when its \
      token has expired, and a newline. Prints nothing and exits 0 when no account would be \
      used. It reads only the index and config.json: never the keyring, the network or an \
      adapter. It never prints a message: a problem (an unreadable index, a rule naming a \
      removed account) only shows in the exit status, and on stderr when ACCOUNTS_DEBUG is set.
      """,
    examples: [
      ("PS1='$(accounts prompt) \\w \\$ '", "bash: show the account before the directory"),
    ],
    handler: run)

  /// Appended to the name when the account's token has expired.
  static let expiredMark = "!"

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    do {
      let book = try environment.index.load()
      guard !book.isEmpty else { return }
      let choice: AccountChoice
      do {
        choice = try AccountChoice.pick(
          argument: nil, option: nil, environment: environment.variables[AccountChoice.environmentVariable],
          rule: { try environment.ruleForCurrentDirectory() }, slot: book.autoLogin,
          isSaved: { book[$0] != nil }, resolve: { try book.resolve($0) })
      } catch is AccountChoice.NoneNamed {
        return
      }
      var segment = book.shortestName(for: choice.id)
      if case .expired = book[choice.id]?.tokenState(at: environment.now()) { segment += expiredMark }
      environment.output.write(Names.printable(segment) + "\n")
    } catch {
      if environment.variables["ACCOUNTS_DEBUG"] != nil, let error = error as? UserFacingError {
        environment.output.failure("accounts prompt: \(error.message)")
      }
      throw QuietFailure(status: (error as? UserFacingError)?.status ?? .failure)
    }
  }
}

/// A failure reported by its exit status alone (`accounts prompt`: a shell prompt is no place
/// for messages).
struct QuietFailure: Error {
  let status: ExitStatus
}
