import AccountsCore
import Glibc

/// The session as `exec`, `env` and `shell` hand it on: ACCOUNTS_ACCOUNT (USER@BACKEND),
/// ACCOUNTS_TOKEN and ACCOUNTS_USER_ID, written once so the three cannot drift apart.
struct SessionVariables {
  static let accountName = AccountChoice.environmentVariable
  static let tokenName = "ACCOUNTS_TOKEN"
  static let userIDName = "ACCOUNTS_USER_ID"

  let account: String
  let token: SecretBytes
  /// The backend's userId; nil when it gave none, and then ACCOUNTS_USER_ID is unset rather
  /// than left over from another account.
  let userID: String?

  init(_ session: ActiveSession) {
    self.init(account: session.id.description, token: session.token, userID: session.sessionValues["userId"])
  }

  init(account: String, token: SecretBytes, userID: String?) {
    self.account = account
    self.token = token
    self.userID = userID
  }

  /// Refuses a value that no environment variable can carry: C strings end at a NUL byte, so
  /// the variable would silently hold a shorter token than the backend gave.
  func checkCarriable() throws(CommandError) {
    let tokenHasNUL = token.withUnsafeBytes { $0.contains(0) }
    if tokenHasNUL || account.utf8.contains(0) || userID?.utf8.contains(0) == true {
      let name = tokenHasNUL ? Self.tokenName : account.utf8.contains(0) ? Self.accountName : Self.userIDName
      throw CommandError(
        .failure, "the session's value for \(name) contains a NUL byte, which no environment variable can hold",
        fix: "log in again (`accounts login`); if it persists, the backend or its adapter is at fault")
    }
  }

  /// Sets the variables in this process's environment, for a program about to replace it.
  /// The token's temporary C string is wiped; the environment's own copy goes with the exec.
  func exportToProcess() {
    setenv(Self.accountName, account, 1)
    token.withUnsafeCString { _ = setenv(Self.tokenName, $0, 1) }
    if let userID { setenv(Self.userIDName, userID, 1) } else { unsetenv(Self.userIDName) }
  }

  /// Takes the token out of this process's environment again when the program did not start.
  static func withdrawToken() {
    unsetenv(tokenName)
  }

  /// The lines that set the variables in `syntax`'s shell: the account, the user id (or its
  /// removal), then the token, so that the last command, and with it the status of `eval` or
  /// fish's `source`, succeeds.
  func appendExports(_ syntax: ExportSyntax, to out: inout [UInt8]) {
    syntax.appendExport(Self.accountName, account.utf8, to: &out)
    if let userID {
      syntax.appendExport(Self.userIDName, userID.utf8, to: &out)
    } else {
      syntax.appendUnset(Self.userIDName, to: &out)
    }
    token.withUnsafeBytes { syntax.appendExport(Self.tokenName, $0, to: &out) }
  }
}
