import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc
import SecretMemory

/// The session as `exec`, `lease`, `env` and `shell` hand it on: ACCOUNTS_ACCOUNT
/// (USER@BACKEND), ACCOUNTS_TOKEN, ACCOUNTS_USER_ID and the token files of `--refresh`
/// (ACCOUNTS_TOKEN_FILE, ACCOUNTS_TOKEN_FILES), written once so they cannot drift apart.
struct SessionVariables {
  static let accountName = AccountChoice.environmentVariable
  static let tokenName = SessionExport.tokenVariable
  static let userIDName = SessionExport.userIDVariable

  let account: String
  let token: SecretBytes
  /// The backend's userId; nil when it gave none, and then ACCOUNTS_USER_ID is unset rather
  /// than left over from another account.
  let userID: String?
  /// `--refresh`'s files, the first for ACCOUNTS_TOKEN_FILE; without any both variables are
  /// unset: an outer `--refresh`'s file holds another account's token.
  var tokenFiles: [TokenFile] = []
  /// ACCOUNTS_TOKEN_FILES lists every file, one per line (`lease`); else it is unset.
  var listsTokenFiles = false

  init(_ session: ActiveSession) {
    self.init(account: session.id.description, token: session.token, userID: session.sessionValues["userId"])
  }

  init(account: String, token: SecretBytes, userID: String?) {
    self.account = account
    self.token = token
    self.userID = userID
  }

  /// Refuses a value that no environment variable can carry (SessionExport's rule): a NUL byte
  /// would end it early, and a string over Linux's limit makes every program fail to start. A
  /// login refuses such a session; this catches one stored before that rule.
  func checkCarriable() throws(CommandError) {
    let problem = SessionExport.problem(token: token, userID: userID)
      ?? SessionExport.problem(Self.accountName, account.utf8).map { (Self.accountName, $0) }
    if let (name, problem) = problem {
      throw CommandError(
        .failure, "the session's value for \(name) \(problem)",
        fix: "log in again (`accounts login`); if it persists, the backend or its adapter is at fault")
    }
  }

  /// Sets the variables in this process's environment, for a program about to replace it.
  /// The token's temporary C string is wiped; the environment's own copy goes with the exec.
  func exportToProcess() {
    setenv(Self.accountName, account, 1)
    token.withUnsafeCString { _ = setenv(Self.tokenName, $0, 1) }
    if let userID { setenv(Self.userIDName, userID, 1) } else { unsetenv(Self.userIDName) }
    if let first = tokenFiles.first { setenv(TokenFile.variable, first.path, 1) } else { unsetenv(TokenFile.variable) }
    if listsTokenFiles, !tokenFiles.isEmpty {
      setenv(TokenFile.listVariable, tokenFiles.map(\.path).joined(separator: "\n"), 1)
    } else {
      unsetenv(TokenFile.listVariable)
    }
  }

  /// Takes the token out of this process's environment again when the program did not start.
  static func withdrawToken() {
    unsetenv(tokenName)
  }

  /// The lines that set the variables in `syntax`'s shell: the account, the user id (or its
  /// removal), the removal of the token files (a shell has none of its own), then the token,
  /// so that the last command, and with it the status of `eval` or fish's `source`, succeeds.
  func appendExports(_ syntax: ExportSyntax, to out: inout [UInt8]) {
    syntax.appendExport(Self.accountName, account.utf8, to: &out)
    if let userID {
      syntax.appendExport(Self.userIDName, userID.utf8, to: &out)
    } else {
      syntax.appendUnset(Self.userIDName, to: &out)
    }
    syntax.appendUnset(TokenFile.variable, to: &out)
    syntax.appendUnset(TokenFile.listVariable, to: &out)
    token.withUnsafeBytes { syntax.appendExport(Self.tokenName, $0, to: &out) }
  }
}
