/// Where an account's lease stands for the command about to act on its session: what SPEC §4's
/// two lease rows decide on (`SessionRules`).
public enum LeaseStanding: Sendable, Equatable {
  /// No live lease holds the account.
  case free
  /// This command holds it: `accounts lease`, or the refresher of its `--refresh`.
  case ours
  /// Another holder does, on this machine or another: only it logs the account in or out.
  case theirs(LeaseRecord)
  /// This command held it and no longer does: its lease expired, was deleted, or another
  /// holder's lease is there now (the record, when the store has one).
  case lost(LeaseRecord?)
}

/// Who holds an account's lease now: the one question the session rules ask of the lease stores.
public protocol LeaseLookup: Sendable {
  /// The live lease of `id`, nil when none holds it. Throws when the store cannot tell (a shared
  /// store that cannot be reached): a command that cannot tell must not act as if it were free.
  func lease(of id: AccountID, now: Timestamp) throws -> LeaseRecord?
}

/// No lease store: every account is free (a flow that never meets a leased account).
public struct NoLeases: LeaseLookup {
  public init() {}
  public func lease(of id: AccountID, now: Timestamp) throws -> LeaseRecord? { nil }
}

/// The lease standing of `id` for a command that holds `held` (the lease id of each account it
/// holds) and sees `record` in the account's store.
extension LeaseStanding {
  public init(of id: AccountID, record: LeaseRecord?, held: [AccountID: String]) {
    if let own = held[id] {
      self = record?.lease == own ? .ours : .lost(record)
    } else {
      self = record.map(LeaseStanding.theirs) ?? .free
    }
  }
}
