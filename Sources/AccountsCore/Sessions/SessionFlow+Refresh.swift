import AccountsContract
import AccountsSystem

extension ActiveSession {
  /// Which login the session came from (nil in indexes written before logins were named).
  public var generation: String? { observed.generation }
  /// When that login happened, as the index recorded it.
  public var loggedInAt: Timestamp? { observed.lastLogin }
}

/// When `--refresh` renews a session, and how it waits after a failure.
public enum RefreshSchedule {
  /// The part of a session's lifetime after which it is renewed.
  public static let lifetimeFraction = 0.8
  /// Without an expiry (or between renewals), how often the session is checked with the
  /// backend by default, in milliseconds.
  public static let defaultCheckMilliseconds: Int64 = 60_000
  /// The longest wait between two attempts after failures.
  public static let longestBackoff = 60.0

  /// Seconds since 1970 at which a session logged in at `loggedInAt` and ending at `expiresAt`
  /// is renewed: 80 % of its lifetime from the login. Nil when it has no expiry (then only a
  /// check with the backend tells that it ended).
  public static func renewalTime(loggedInAt: Timestamp?, expiresAt: Timestamp?) -> Double? {
    guard let expiresAt else { return nil }
    let end = Double(expiresAt.secondsSince1970)
    let start = min(Double((loggedInAt ?? expiresAt).secondsSince1970), end)
    return start + (end - start) * lifetimeFraction
  }

  /// The wait after `failures` failed attempts in a row (1 or more): 1 s doubling to a minute,
  /// and never past the end of a session that is still valid (`secondsLeft`), so one more
  /// attempt comes before it ends; never less than a second.
  public static func backoff(failures: Int, secondsLeft: Double?) -> Double {
    let doubling = min(longestBackoff, Double(1 << min(max(failures - 1, 0), 6)))
    guard let secondsLeft, secondsLeft > 1 else { return doubling }
    return min(doubling, secondsLeft)
  }
}

extension SessionFlow {
  /// `--refresh`, when a session reaches its renewal time: the one renewal (`renewOnce`: the
  /// refresh token, else a login with the remembered password; SPEC §4 in one place), unless another command renewed the session since `generation` and its renewal
  /// time is still ahead (then that session is taken: another login would take it over).
  /// Each call has its own `--timeout`, and the backend's configuration as it is now.
  public func renew(_ id: AccountID, replacing generation: String?, now seconds: Double) throws -> ActiveSession {
    try requireLeaseKept(id)
    var flow = self
    flow.budget = OperationBudget(seconds: timeout)
    flow.forgetPreparedBackends()
    let backend = try flow.prepare(id.backend)
    try flow.allow(.logIn, id)
    return try flow.locks.exclusive(id) {
      if let stored = try flow.storedSession(id), stored.generation != generation,
        RefreshSchedule.renewalTime(loggedInAt: stored.loggedInAt, expiresAt: stored.expiresAt) ?? .infinity > seconds
      {
        return stored
      }
      return try flow.renewOnce(id, backend, asking: false, because: "the session is due for renewal")
    }
  }

  /// `--refresh`, between renewals: the session checked with the backend (CHECK), SPEC §4
  /// applied to its verdict (an expired session is logged in again with the remembered
  /// password), with its own `--timeout` and the backend's configuration as it is now. A
  /// holder that lost the account's lease is told so at once (as `renew` does), before a
  /// verdict could make it log in.
  public func checkedSession(_ id: AccountID) throws -> ActiveSession {
    try requireLeaseKept(id)
    var flow = self
    flow.budget = OperationBudget(seconds: timeout)
    flow.forgetPreparedBackends()
    return try flow.session(for: id, prove: true, password: .rememberedOnly)
  }
}
