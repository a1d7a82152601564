import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc

/// `accounts shell [USER] [--force]`
enum ShellCommand {
  static let spec = CommandSpec(
    "shell",
    summary: "start $SHELL with the account's session in its environment",
    discussion: """
      Gets the account's session the way `accounts token` does, then replaces itself with \
      $SHELL (/bin/sh when SHELL is unset or empty) with ACCOUNTS_ACCOUNT, ACCOUNTS_TOKEN, \
      ACCOUNTS_USER_ID (as `accounts env` sets them; ACCOUNTS_TOKEN_FILE and \
      ACCOUNTS_TOKEN_FILES unset) and ACCOUNTS_SHELL=1 in its environment: \
      every command in it uses that account until `exit`, which returns to the shell you came \
      from with the shell's exit status. Inside such a shell (ACCOUNTS_SHELL set) it refuses to \
      start another with exit status 2, unless --force: to change the account of the shell you \
      are in, use `eval "$(accounts env USER)"`.
      """,
    picksAccount: true, options: [force, TokenCommand.check, SessionArguments.timeout],
    examples: [("accounts shell carol", "work as carol until exit")],
    secretInput: .password,
    handler: run)

  static let force = OptionSpec("force", help: "start one even inside a shell that `accounts shell` started")

  /// Set to 1 in the shell, so that a second `accounts shell` inside it is refused.
  static let nestingVariable = "ACCOUNTS_SHELL"

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    if let nested = environment.variables[nestingVariable], !nested.isEmpty, !invocation.isSet(force) {
      throw CommandError.usage(
        "this is already a shell that `accounts shell` started (\(nestingVariable) is set)",
        fix: "exit it first, change its account with `eval \"$(accounts env USER)\"`, or pass --force to nest")
    }
    let program = environment.variables["SHELL"].flatMap { $0.isEmpty ? nil : $0 } ?? "/bin/sh"
    let id = try environment.pickAccount(invocation, in: try environment.index.load()).id
    let session = try environment.sessionFlow(invocation).session(
      for: id, prove: invocation.isSet(TokenCommand.check), password: try environment.passwordSource(invocation))
    let variables = SessionVariables(session)
    try variables.checkCarriable()
    variables.exportToProcess()
    setenv(nestingVariable, "1", 1)
    var argv: [UnsafeMutablePointer<CChar>?] = [strdup(program), nil]
    AdapterStreams.restore()
    execv(program, &argv)
    let reason = String(cString: strerror(errno))
    SessionVariables.withdrawToken()
    throw CommandError(
      .failure, "cannot start the shell \(Names.printable(program)): \(reason)",
      fix: "set SHELL to the absolute path of a shell, e.g. SHELL=/bin/bash")
  }
}
