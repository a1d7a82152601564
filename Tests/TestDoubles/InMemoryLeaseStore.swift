import AccountsContract
import AccountsCore
import AccountsSystem
import Synchronization

/// A lease store in memory: held leases live until their grant ends, detached ones until they
/// expire; busy accounts are reported with their records. It is also the session rules'
/// `LeaseLookup`, as the real stores are through `StoreLeaseLookup`. The real stores are tested
/// against files and a real Redis.
public final class InMemoryLeaseStore: LeaseStore, LeaseLookup, @unchecked Sendable {
  private let state = Mutex((records: [AccountID: LeaseRecord](), fences: [AccountID: UInt64](), attempts: 0))
  /// Accounts some other acquirer is taking at this instant: busy, without a record.
  public var beingTaken: Set<AccountID> = []

  public init() {}

  /// How many times `tryAcquire` was called.
  public var attempts: Int { state.withLock { $0.attempts } }

  /// Holds `id` for another holder, as if another command leased it.
  public func hold(_ id: AccountID, lease: String = "held-elsewhere", host: String = "ci-9", expiresAt: Timestamp? = nil) {
    state.withLock {
      $0.records[id] = LeaseRecord(
        account: id, lease: lease, holder: LeaseHolder(host: host, pid: 99), since: Timestamp(secondsSince1970: 1_799_999_000),
        expiresAt: expiresAt, fence: 1)
    }
  }

  /// Frees `id`, as if its holder ended its lease.
  public func free(_ id: AccountID) { state.withLock { _ = $0.records.removeValue(forKey: id) } }

  private func live(_ record: LeaseRecord, _ now: Timestamp) -> Bool { record.expiresAt.map { now < $0 } ?? true }

  public func tryAcquire(
    _ candidates: [AccountID], count: Int, holder: LeaseHolder, ttl: Double?, now: Timestamp
  ) throws -> LeaseAttempt {
    try state.withLock { state in
      state.attempts += 1
      guard count >= 1, count <= candidates.count else { throw CommandError.usage("bad count") }
      var taken: [AccountID] = []
      var busy: [BusyAccount] = []
      for id in candidates where taken.count < count {
        if beingTaken.contains(id) {
          busy.append(BusyAccount(account: id, record: nil))
        } else if let record = state.records[id], live(record, now) {
          busy.append(BusyAccount(account: id, record: record))
        } else {
          taken.append(id)
        }
      }
      guard taken.count == count else { return .busy(busy) }
      let lease = "lease\(state.attempts)"
      let records = taken.map { id -> LeaseRecord in
        let fence = (state.fences[id] ?? 0) + 1
        state.fences[id] = fence
        return LeaseRecord(
          account: id, lease: lease, holder: holder, since: now, expiresAt: ttl.map { now.adding(seconds: Int64($0)) },
          fence: fence)
      }
      for record in records { state.records[record.account] = record }
      return .granted(LeaseGrant(lease: lease, records: records, descriptors: []))
    }
  }

  public func release(lease: String, now: Timestamp) throws -> [AccountID] {
    state.withLock { state in
      let freed = state.records.values.filter { $0.lease == lease }.map(\.account).sorted()
      for id in freed { state.records[id] = nil }
      return freed
    }
  }

  public func leases(now: Timestamp) throws -> [LeaseRecord] {
    state.withLock { $0.records.values.filter { live($0, now) }.sorted { $0.account < $1.account } }
  }

  public func detach(_ grant: LeaseGrant, ttl: Double, now: Timestamp) throws -> LeaseGrant {
    try state.withLock { state in
      var records: [LeaseRecord] = []
      for var record in grant.records {
        guard state.records[record.account]?.lease == grant.lease else { throw LeaseError.unknown(lease: grant.lease) }
        record.expiresAt = now.adding(seconds: Int64(ttl))
        state.records[record.account] = record
        records.append(record)
      }
      return LeaseGrant(lease: grant.lease, records: records, descriptors: [])
    }
  }

  /// Ends a held grant (what its command's exit does to a real store).
  public func end(_ grant: LeaseGrant) {
    state.withLock { state in
      for record in grant.records where state.records[record.account]?.lease == grant.lease && record.expiresAt == nil {
        state.records[record.account] = nil
      }
    }
  }

  public func lease(of id: AccountID, now: Timestamp) throws -> LeaseRecord? {
    state.withLock { state in state.records[id].flatMap { live($0, now) ? $0 : nil } }
  }
}
