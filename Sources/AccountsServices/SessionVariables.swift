import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc
import SecretMemory

/// The session as `exec`, `lease`, `env` and `shell` hand it on: ACCOUNTS_ACCOUNT
/// (USER@BACKEND), ACCOUNTS_TOKEN, ACCOUNTS_USER_ID and the token files of `--refresh`
/// (ACCOUNTS_TOKEN_FILE, ACCOUNTS_TOKEN_FILES), written once so they cannot drift apart.
public struct SessionVariables {
  public static let accountName = AccountChoice.environmentVariable
  public static let tokenName = SessionExport.tokenVariable
  public static let userIDName = SessionExport.userIDVariable

  public let account: String
  public let token: SecretBytes
  /// The backend's userId; nil when it gave none, and then ACCOUNTS_USER_ID is unset rather
  /// than left over from another account.
  public let userID: String?
  /// `--refresh`'s files, the first for ACCOUNTS_TOKEN_FILE; without any both variables are
  /// unset: an outer `--refresh`'s file holds another account's token.
  public var tokenFiles: [TokenFile] = []
  /// ACCOUNTS_TOKEN_FILES lists every file, one per line (`lease`); else it is unset.
  public var listsTokenFiles = false

  public init(_ session: ActiveSession) {
    self.init(account: session.id.description, token: session.token, userID: session.sessionValues["userId"])
  }

  public init(account: String, token: SecretBytes, userID: String?) {
    self.account = account
    self.token = token
    self.userID = userID
  }

  /// Refuses a value that no environment variable can carry (SessionExport's rule): a NUL byte
  /// would end it early, and a string over Linux's limit makes every program fail to start. A
  /// login refuses such a session; this catches one stored before that rule.
  public func checkCarriable() throws(CommandError) {
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
  public func exportToProcess() {
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
  public static func withdrawToken() {
    unsetenv(tokenName)
  }
}
