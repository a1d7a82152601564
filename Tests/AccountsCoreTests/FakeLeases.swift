import AccountsContract
import AccountsCore
import AccountsSystem
import Synchronization

/// The lease stores as the session rules see them: each account's live lease, set by the test,
/// and the lookups made. `failure`: every lookup throws it (a store that cannot be reached).
final class FakeLeases: LeaseLookup, Sendable {
  private let state = Mutex((records: [AccountID: LeaseRecord](), lookups: [AccountID](), failure: CommandError?.none))

  static let since = Timestamp(secondsSince1970: 1_799_990_000)

  /// A held lease `lease` of `id` by `host`:4242.
  static func record(_ id: AccountID, lease: String, host: String = "ci-7") -> LeaseRecord {
    LeaseRecord(account: id, lease: lease, holder: LeaseHolder(host: host, pid: 4242), since: since, expiresAt: nil, fence: 3)
  }

  func hold(_ id: AccountID, lease: String, host: String = "ci-7") {
    state.withLock { $0.records[id] = Self.record(id, lease: lease, host: host) }
  }

  func free(_ id: AccountID) { state.withLock { _ = $0.records.removeValue(forKey: id) } }

  func fail(_ error: CommandError?) { state.withLock { $0.failure = error } }

  var lookups: [AccountID] { state.withLock { $0.lookups } }

  func lease(of id: AccountID, now: Timestamp) throws -> LeaseRecord? {
    try state.withLock { state in
      state.lookups.append(id)
      if let failure = state.failure { throw failure }
      return state.records[id]
    }
  }
}
