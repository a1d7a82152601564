import AccountsContract
import AccountsCore
import AccountsSystem
import Synchronization

/// The lease stores as the session rules see them: each account's live lease, set by the test,
/// and the lookups made. `fail(_:)`: every lookup throws that error (a store that cannot be
/// reached).
public final class FakeLeases: LeaseLookup, Sendable {
  private let state = Mutex((records: [AccountID: LeaseRecord](), lookups: [AccountID](), failure: CommandError?.none))

  /// When every lease of `record` began.
  public static let since = Timestamp(secondsSince1970: 1_799_990_000)

  /// A held lease `lease` of `id` by `host`:4242.
  public static func record(_ id: AccountID, lease: String, host: String = "ci-7") -> LeaseRecord {
    LeaseRecord(account: id, lease: lease, holder: LeaseHolder(host: host, pid: 4242), since: since, expiresAt: nil, fence: 3)
  }

  public init() {}

  /// `id` held by `lease` of `host`:4242.
  public func hold(_ id: AccountID, lease: String, host: String = "ci-7") {
    state.withLock { $0.records[id] = Self.record(id, lease: lease, host: host) }
  }

  public func free(_ id: AccountID) { state.withLock { _ = $0.records.removeValue(forKey: id) } }

  public func fail(_ error: CommandError?) { state.withLock { $0.failure = error } }

  /// The accounts looked up, in order.
  public var lookups: [AccountID] { state.withLock { $0.lookups } }

  public func lease(of id: AccountID, now: Timestamp) throws -> LeaseRecord? {
    try state.withLock { state in
      state.lookups.append(id)
      if let failure = state.failure { throw failure }
      return state.records[id]
    }
  }
}
