import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem

/// `accounts env [USER] [--shell bash|zsh|fish]`
enum EnvCommand {
  static let spec = CommandSpec(
    "env",
    summary: "print the account's session as exports for eval",
    discussion: """
      Gets the account's session the way `accounts token` does and prints commands that set \
      ACCOUNTS_ACCOUNT (USER@BACKEND), ACCOUNTS_TOKEN and ACCOUNTS_USER_ID (the backend's \
      userId; unset when it gave none) in the shell that evaluates them, and unset \
      ACCOUNTS_TOKEN_FILE and ACCOUNTS_TOKEN_FILES (an outer `exec --refresh`'s files hold \
      another session's token): `export` lines for \
      bash and zsh, `set -gx` for fish. Every value is single-quoted for that shell, so the \
      shell gets its exact bytes and runs nothing in it. The token goes to stdout only: keep \
      the output out of files and logs. ACCOUNTS_ACCOUNT then picks the account for every later \
      command in that shell.
      """,
    picksAccount: true,
    options: [shell, TokenCommand.check, SharedArguments.passwordStdin, SessionArguments.timeout],
    examples: [
      ("eval \"$(accounts env)\"", "bash or zsh: this shell uses the current account"),
      ("accounts env bob --shell fish | source", "fish: this shell uses bob"),
    ],
    handler: run)

  static let shell = OptionSpec(
    "shell", value: "SHELL", completion: .shell,
    help: "write for bash, zsh or fish (default: the one $SHELL names, else bash)")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let syntax = try syntax(invocation, environment)
    let id = try environment.pickAccount(invocation, in: try environment.index.load()).id
    let session = try environment.sessionFlow(invocation).session(
      for: id, prove: invocation.isSet(TokenCommand.check), password: try environment.passwordSource(invocation))
    let variables = SessionVariables(session)
    try variables.checkCarriable()
    environment.output.writeSecret { variables.appendExports(syntax, to: &$0) }
  }

  /// `--shell`, else the shell `$SHELL` names, else bash. Checked before any network.
  static func syntax(_ invocation: Invocation, _ environment: Environment) throws(CommandError) -> ExportSyntax {
    guard let name = invocation.value(shell) else { return .forShell(path: environment.variables["SHELL"]) }
    guard let syntax = ExportSyntax(rawValue: name) else {
      throw .usage("--shell '\(Names.printable(name))' is not a shell accounts writes for", fix: "choose one of bash, zsh, fish")
    }
    return syntax
  }
}
