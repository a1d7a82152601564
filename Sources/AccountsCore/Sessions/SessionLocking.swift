import AccountsContract

/// One login at a time for each account, across every `accounts` process: when eight scripts
/// find the same session expired, one logs in again and the others take its new session, rather
/// than eight logins each taking the session over from the one before (single sign-on). A
/// flow's lock is reentrant within that flow: the login a verdict leads to runs under the lock
/// the verdict took. (AccountsServices' `SessionLocks` keeps them in a lock file.)
public protocol SessionLocking: Sendable {
  /// Runs `body` holding the lock of `id`, waiting (bounded) for another holder.
  func exclusive<Result>(_ id: AccountID, _ body: () throws -> Result) throws -> Result
}
