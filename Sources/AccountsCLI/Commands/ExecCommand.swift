import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc

/// `accounts exec [USER] -- CMD...`
enum ExecCommand {
  static let spec = CommandSpec(
    "exec",
    summary: "run a command with the account's session in its environment",
    discussion: """
      Gets the account's session the way `accounts token` does, then replaces itself with CMD \
      (searched in PATH), with ACCOUNTS_ACCOUNT (USER@BACKEND), ACCOUNTS_TOKEN and \
      ACCOUNTS_USER_ID (the backend's userId, when it gave one) in its environment. The token \
      reaches CMD only through its environment, never its arguments. CMD's exit status and \
      signals are the caller's. When CMD cannot run, exits 127 if it was not found and 126 if \
      it was found but could not run (not executable, permission denied, wrong format), as \
      env(1) and shells do.

      The account is, first match wins: \(AccountChoice.orderText). \(AccountChoice.pickerText)

      \(SessionRefresh.discussion) A session taken over by another login is not logged in \
      again (that would take the other one over in turn): that is said, and the file keeps the \
      last token.
      """,
    picksAccount: true, arguments: [command],
    options: [SharedArguments.passwordStdin, SessionArguments.timeout, SessionRefresh.refresh, SessionRefresh.check],
    examples: [
      ("accounts exec bob -- ./integration-test.sh", "run the tests as bob"),
      ("accounts exec bob --refresh -- ./four-hour-suite.sh", "$ACCOUNTS_TOKEN_FILE holds a live token all along"),
    ],
    handler: run)

  static let command = ArgumentSpec.trailingCommand(help: "the command to run, after --, with its arguments")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let refresh = try SessionRefresh(invocation)
    let book = try environment.index.load()
    let id = try environment.pickAccountOrChoose(invocation, in: book, prompt: "run as> ")
    let flow = try environment.sessionFlow(invocation)
    // Before the login: a command whose session could not be kept live, or whose token file
    // has no safe place, does not run, and no session is got for it.
    if let refresh { try refresh.prepare(id, in: book, flow, environment) }
    let words = invocation.arguments(command)
    let session = try flow.session(for: id, prove: false, password: try environment.passwordSource(invocation))
    var variables = SessionVariables(session)
    try variables.checkCarriable()
    // Started before the token is in this process's environment, which the refresher inherits.
    let timeout = try environment.timeout(invocation)
    variables.tokenFiles = try refresh?.start([session], timeout: timeout, environment) ?? []
    variables.exportToProcess()
    var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    AdapterStreams.restore()
    execvp(words[0], &argv)
    let code = errno
    SessionVariables.withdrawToken()
    variables.tokenFiles.forEach { $0.remove() }
    throw cannotRun(words[0], errno: code, fix: "check the command name and PATH")
  }

  /// A program `exec` could not start, with the status `env(1)` and shells give it: 127 when
  /// there is no such program, 126 when there is one that cannot run (not executable,
  /// permission denied, not a program for this machine).
  static func cannotRun(_ program: String, errno code: Int32, fix: String) -> CommandError {
    let notFound = code == ENOENT
    return CommandError(
      notFound ? .commandNotFound : .commandNotRunnable,
      "cannot run \(Names.printable(program)): \(String(cString: strerror(code)))",
      fix: notFound ? fix : "make it an executable program for this machine (`chmod +x`, the right architecture)")
  }
}
