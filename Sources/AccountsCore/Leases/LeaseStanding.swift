import AccountsContract

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

extension LeaseStanding {
  /// The lease standing of `id` for a command that sees `record` in the account's store and
  /// holds `held` (each account it holds, by lease id: `accounts lease`, its command, their
  /// refreshers) or presents `presented` (lease ids it acts for, the accounts unknown: the
  /// worker of a detached lease). A held account whose record is another lease's, or none, is
  /// lost; a presented id is the holder's only where the record is its lease.
  public init(of id: AccountID, record: LeaseRecord?, held: [AccountID: String], presented: Set<String> = []) {
    if let own = held[id] {
      self = record?.lease == own ? .ours : .lost(record)
    } else if let record, presented.contains(record.lease) {
      self = .ours
    } else {
      self = record.map(LeaseStanding.theirs) ?? .free
    }
  }
}
