import AccountsContract
import AccountsSystem

/// `accounts lease`: `count` free accounts of `candidates`, each with a live session, held by
/// one lease. An account that cannot log in is skipped (said through `notice`) and others are
/// taken instead; when not enough are free, it waits up to `waitSeconds` (and always a moment:
/// another lease taking or giving up the same accounts holds them for an instant), then fails
/// with exit 10 naming who holds them.
public struct LeaseAcquisition {
  public var candidates: [AccountID]
  public var count: Int
  public var waitSeconds: Double
  /// How long a held lease this command gives up may still hold its accounts in a shared store
  /// (its keeper deletes the keys an instant after, a held lease's ttl at the latest): waited
  /// out, whatever `waitSeconds`.
  public var heldTTLSeconds: Double
  /// The least wait, for a moment's contention.
  public static let leastWaitSeconds = 0.25

  /// The monotonic clock in seconds, and a pause on it (tests give their own).
  public var clock: () -> Double = monotonicSeconds
  public var pause: (Double) -> Void = { sleep(seconds: $0) }

  public init(candidates: [AccountID], count: Int, waitSeconds: Double, heldTTLSeconds: Double) {
    self.candidates = candidates
    self.count = count
    self.waitSeconds = waitSeconds
    self.heldTTLSeconds = heldTTLSeconds
  }

  /// Takes the lease from `store` for `holder` (held: a detached lease is detached by its
  /// caller once its sessions are ready, so a command killed during a login leaves nothing
  /// held), with the sessions `flow` gives its accounts as their holder. `check` refuses an
  /// account before its session is asked for (`--refresh` needs a refresh token or a
  /// remembered password).
  public func acquire(
    from store: LeaseStore, holder: LeaseHolder, flow: SessionFlow, check: (AccountID) throws -> Void = { _ in },
    notice: (String) -> Void
  ) throws -> (grant: LeaseGrant, sessions: [ActiveSession]) {
    var flow = flow
    var skipped: [AccountID] = []
    var lastFailure: (any Error)?
    var pause = 0.05
    let deadline = clock() + max(waitSeconds, Self.leastWaitSeconds)
    var givenUp: [String] = []
    var givenUpUntil = 0.0
    while true {
      let pool = candidates.filter { !skipped.contains($0) }
      guard pool.count >= count else { throw lastFailure ?? CommandError(.failure, "no account to lease") }
      switch try store.tryAcquire(pool, count: count, holder: holder, ttl: nil, now: flow.now()) {
      case .busy(let busy):
        let ours = busy.contains { $0.record.map { givenUp.contains($0.lease) } ?? false }
        let remaining = (ours ? max(deadline, givenUpUntil) : deadline) - clock()
        guard remaining > 0 else { throw LeaseError.noAccountFree(busy, count: count, waited: waitSeconds > 0) }
        self.pause(min(pause, remaining))
        pause = min(pause * 2, 0.5)
      case .granted(let grant):
        // Its accounts' sessions are this command's now (SPEC §4: only the holder logs them in).
        flow.heldLeases = Dictionary(grant.records.map { ($0.account, $0.lease) }) { first, _ in first }
        var sessions: [ActiveSession] = []
        for id in grant.accounts {
          do {
            try check(id)
            sessions.append(try flow.leasedSession(for: id))
          } catch let error as any UserFacingError {
            skipped.append(id)
            lastFailure = error
            // Said when another account is tried instead; else the error itself is the message.
            if candidates.count - skipped.count >= count { notice("accounts: lease: skipped \(id): \(error.message)") }
            break
          }
        }
        guard sessions.count == grant.accounts.count else {
          grant.end()
          givenUp.append(grant.lease)
          givenUpUntil = clock() + heldTTLSeconds
          pause = 0.05
          continue
        }
        return (grant, sessions)
      }
    }
  }
}

extension LeaseError {
  /// Exit 10, naming who holds what was asked for (the first three).
  public static func noAccountFree(_ busy: [BusyAccount], count: Int, waited: Bool) -> CommandError {
    let held = busy.prefix(3).map { account in
      guard let record = account.record else { return "\(account.account) being taken" }
      return "\(account.account) held by \(record.holder) since \(LocalTime.format(record.since))"
    }
    let more = busy.count > 3 ? " and \(busy.count - 3) more" : ""
    let wanted = count == 1 ? "no account free" : "not \(count) accounts free"
    return CommandError(
      .noAccountFree, "\(wanted): " + held.joined(separator: ", ") + more,
      fix: waited
        ? "wait longer with --wait, or see who holds them with `accounts leases`"
        : "wait for one with --wait (e.g. --wait 10m); see who holds them with `accounts leases`")
  }
}
