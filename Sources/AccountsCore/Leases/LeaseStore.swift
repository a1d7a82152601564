import AccountsContract
import AccountsSystem

/// Leases: an account checked out to one holder at a time, so parallel test
/// workers never log each other out of a single sign-on backend.
///
/// The invariant every store keeps: at no moment do two live leases hold the same account.
/// A lease is one of two kinds:
/// - held (`expiresAt == nil`): alive for as long as some process holds it (the command form,
///   `accounts lease ... -- CMD`); the kernel ends it when the last such process exits.
/// - detached (`expiresAt` set, `--ttl`): alive until `release` or until it expires.
///
/// Acquiring N accounts takes N or none. Every lease of an account carries a fencing token
/// (`fence`) strictly greater than that account's previous one, so a test framework can tell a
/// stale holder from the current one.
public protocol LeaseStore: AnyObject {
  /// Takes `count` accounts from `candidates`, the first free ones in the order given, or
  /// none: never waits (waiting is the command's loop over this), never takes a partial set.
  /// `ttl` (seconds, > 0) makes a detached lease expiring `ttl` after `now`; nil a held one.
  /// Throws for bad arguments (`count` not within 1...candidates, `ttl` not > 0) and for a
  /// store that cannot be used.
  func tryAcquire(
    _ candidates: [AccountID], count: Int, holder: LeaseHolder, ttl: Double?, now: Timestamp
  ) throws -> LeaseAttempt

  /// Ends the detached lease `lease` early; returns the accounts it freed. An id that names no
  /// live detached lease of this store (unknown, mistyped, another store's, expired, or a held
  /// lease, which ends with its processes) throws `LeaseError` and frees nothing.
  func release(lease: String, now: Timestamp) throws -> [AccountID]

  /// Every live lease, one record per account, ordered by account. Asking takes no lock, so it
  /// never makes a concurrent `tryAcquire` fail. A lease the store holds but cannot read throws.
  func leases(now: Timestamp) throws -> [LeaseRecord]

  /// Every live lease as `leases(now:)`, and each one the store holds but cannot read, which
  /// does not keep the others from being shown.
  func survey(now: Timestamp) throws -> LeaseSurvey

  /// The live leases of `accounts`, each record naming the account as given (a shared store
  /// may know it under another backend's name: see `lease_prefix`).
  func leases(of accounts: [AccountID], now: Timestamp) throws -> [LeaseRecord]

  /// Turns the held lease `grant` into a detached one that lasts `ttl` seconds from `now`, with
  /// the same id and fences, and ends the grant: a detached lease is taken held first and
  /// detached only once its accounts are ready, so a holder killed on the way leaves nothing
  /// behind. Never lets the accounts go in between.
  func detach(_ grant: LeaseGrant, ttl: Double, now: Timestamp) throws -> LeaseGrant
}

extension LeaseStore {
  public func survey(now: Timestamp) throws -> LeaseSurvey { LeaseSurvey(records: try leases(now: now), unreadable: []) }

  public func leases(of accounts: [AccountID], now: Timestamp) throws -> [LeaseRecord] {
    let wanted = Set(accounts)
    return try leases(now: now).filter { wanted.contains($0.account) }
  }
}

/// Who took a lease: the machine and the process, for "qa1 held by host:pid since ...".
public struct LeaseHolder: Equatable, Sendable, CustomStringConvertible {
  public var host: String
  public var pid: Int32

  public init(host: String, pid: Int32) {
    self.host = host
    self.pid = pid
  }

  /// This process on this machine. A host name with bytes other than printable ASCII (which
  /// `isHostName` refuses) has them as `?`.
  public static func current() -> LeaseHolder { LeaseHolder(host: hostName(), pid: currentProcessID()) }

  /// A host name as `current` writes one: 1 to 255 printable ASCII characters, no space.
  public static func isHostName(_ text: String) -> Bool {
    (1...255).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21..<0x7F).contains($0) }
  }

  /// `host:pid`
  public var description: String { "\(host):\(pid)" }
}

/// How a lease stays alive.
public enum LeaseKind: String, Equatable, Sendable {
  /// While some process holds it (the command form).
  case held
  /// Until released or expired (`--ttl`).
  case detached
}

/// One account's lease, as the store keeps it and `accounts leases` shows it.
public struct LeaseRecord: Equatable, Sendable {
  public var account: AccountID
  /// The lease's id, shared by every account the lease holds (`accounts release ID`).
  public var lease: String
  public var holder: LeaseHolder
  public var since: Timestamp
  /// When a detached lease ends; nil for a held lease.
  public var expiresAt: Timestamp?
  /// The fencing token: greater than every earlier lease of this account in this store.
  public var fence: UInt64
  /// For a held lease of a shared store: how long it lasts after each renewal by its keeper
  /// process (nil for the others, whose kernel locks need no keeper).
  public var keeperTTLMilliseconds: Int64?
  /// Set when such a lease's keeper has missed its renewals (less than half the ttl is left:
  /// the keeper was killed, stopped, or cut off from the store): when the lease runs out
  /// unless renewed, and another holder may take its account. Read from the store, never kept.
  public var lapsesAt: Timestamp?

  public init(
    account: AccountID, lease: String, holder: LeaseHolder, since: Timestamp, expiresAt: Timestamp?, fence: UInt64,
    keeperTTLMilliseconds: Int64? = nil
  ) {
    self.account = account
    self.lease = lease
    self.holder = holder
    self.since = since
    self.expiresAt = expiresAt
    self.fence = fence
    self.keeperTTLMilliseconds = keeperTTLMilliseconds
  }

  public var kind: LeaseKind { expiresAt == nil ? .held : .detached }
}

/// What a store holds: the leases it can read, and the places of those it cannot.
public struct LeaseSurvey {
  public var records: [LeaseRecord]
  public var unreadable: [UnreadableLease]

  public init(records: [LeaseRecord], unreadable: [UnreadableLease]) {
    self.records = records
    self.unreadable = unreadable
  }
}

/// A lease a store holds but cannot read: where it is (a Redis key), and why, with the fix.
public struct UnreadableLease: Equatable, Sendable {
  public var place: String
  public var problem: LeaseStoreUnavailable

  public init(place: String, problem: LeaseStoreUnavailable) {
    self.place = place
    self.problem = problem
  }
}

/// A candidate that was not free, and who holds it.
public struct BusyAccount: Equatable, Sendable {
  public var account: AccountID
  /// The lease holding it; nil when another process is taking it at this very moment and has
  /// not written its record yet.
  public var record: LeaseRecord?

  public init(account: AccountID, record: LeaseRecord?) {
    self.account = account
    self.record = record
  }
}

/// What `tryAcquire` got.
public enum LeaseAttempt {
  case granted(LeaseGrant)
  /// Fewer than `count` candidates were free, so nothing was taken: the busy ones, in the
  /// order of the candidates.
  case busy([BusyAccount])
}

/// A lease just taken. For a held lease it owns the descriptors whose locks keep the lease
/// alive: keep the grant (or a child process that inherited them) alive for as long as the
/// lease should last. A detached lease owns nothing and lives on after the grant.
public final class LeaseGrant {
  /// The lease's id.
  public let lease: String
  /// One per account taken, in the order of the candidates.
  public let records: [LeaseRecord]
  public private(set) var descriptors: [FileDescriptor]

  public init(lease: String, records: [LeaseRecord], descriptors: [FileDescriptor]) {
    self.lease = lease
    self.records = records
    self.descriptors = descriptors
  }

  deinit { end() }

  /// The accounts taken, in the order of the candidates.
  public var accounts: [AccountID] { records.map(\.account) }

  /// The descriptors a child command must inherit to keep a held lease alive when this
  /// process is gone (empty for a detached lease, and after `end`). They are close-on-exec:
  /// hand them on with `posix_spawn_file_actions_adddup2(actions, fd, fd)` (which clears the
  /// flag in the child only), or call `inheritAcrossExec` before `exec`ing the command.
  public var inheritedDescriptors: [Int32] { descriptors.map(\.rawValue) }

  /// Makes the descriptors survive an `exec` of this process (for `exec`-style commands).
  /// Any child started afterwards inherits them too, and holds the lease while it lives.
  public func inheritAcrossExec() throws(Errno) {
    for descriptor in descriptors { try descriptor.setInheritedAcrossExec(true) }
  }

  /// Closes this process's descriptors. A held lease ends at once unless a child inherited
  /// them; then it ends when the last such process exits. Idempotent. (A child this process
  /// is spawning from another thread holds copies of every descriptor from fork to exec, and
  /// for that instant keeps the lease alive.)
  public func end() {
    for descriptor in descriptors { descriptor.close() }
    descriptors = []
  }
}
