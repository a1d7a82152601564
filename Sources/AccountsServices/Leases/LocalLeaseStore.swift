import AccountsCore
import AccountsContract
import AccountsSystem
import Glibc

/// The lease store of one machine, with no server: the default store.
///
/// Each account has a lock file held with an open file description lock (`F_OFD_SETLK`). A held
/// lease keeps it taken through descriptors the lease's processes inherit, so the kernel ends
/// the lease when the last of them exits, SIGKILL included: no stale lock, ever. A detached
/// lease is a record with an expiry, written under the lock, which is then released. Whoever
/// takes an account holds its lock while deciding, so two acquirers never both see it free.
///
/// A lease record left by a held lease whose processes are gone is not live. One limit:
/// `leases` may, for the instant between another process taking an account's lock and writing
/// its record, show the account's previous holder.
///
/// The directory is per user, not per setup: two state directories of one user leasing
/// corp's alice share it (they are the same real account). See `defaultDirectory`.
public final class LocalLeaseStore: LeaseStore {
  /// Where the store keeps its files.
  public let directory: String
  let files: LeaseDirectory
  let random: (Int) -> [UInt8]
  /// The clock a new fence is at least (`LeaseFence`): milliseconds since 1970.
  let fenceFloor: () -> Int64

  /// How long `release` waits for an account's lock, which only a concurrent acquirer deciding
  /// or a concurrent release holds (each for an instant).
  static let releaseWaitSeconds = 5

  /// The store in `directory`, whose files must belong to `userID`. `random` gives lease ids
  /// their randomness (getrandom by default).
  public init(
    directory: String, userID: uid_t = getuid(), random: @escaping (Int) -> [UInt8] = { randomBytes(count: $0) },
    fenceFloor: @escaping () -> Int64 = wallClockMilliseconds
  ) {
    self.directory = directory
    files = LeaseDirectory(path: directory, userID: userID)
    self.random = random
    self.fenceFloor = fenceFloor
  }

  /// `$XDG_RUNTIME_DIR/accounts/leases` (per user, gone at logout with the locks it held);
  /// without XDG_RUNTIME_DIR, the same under `/run/user/UID` when that is the user's own
  /// private directory; else `leases` in the state directory. Never /tmp, never the working
  /// directory (`RuntimeDirectory`). Every worker of one pool must see the same directory.
  public static func defaultDirectory(
    environment: [String: String], userID: uid_t = getuid(), systemRuntime: String = "/run/user"
  ) throws(CommandError) -> String {
    try RuntimeDirectory.path(environment: environment, userID: userID, systemRuntime: systemRuntime) + "/leases"
  }

  public func tryAcquire(
    _ candidates: [AccountID], count: Int, holder: LeaseHolder, ttl: Double?, now: Timestamp
  ) throws -> LeaseAttempt {
    var seen = Set<AccountID>()
    let candidates = candidates.filter { seen.insert($0).inserted }
    guard count >= 1, count <= candidates.count else {
      throw CommandError.usage(
        "cannot lease \(count) of \(candidates.count) account(s)", fix: "name at least as many accounts as --count")
    }
    if let ttl, !(ttl > 0 && ttl < Double(Timestamp.longestLifetime)) {
      throw CommandError.usage("a lease's ttl must be more than 0 and at most ten years", fix: "give --ttl like 30m")
    }
    _ = try files.prepare(create: true)

    // Take the locks of the first `count` free candidates, without waiting: never a deadlock.
    var taken: [(account: AccountID, lock: FileDescriptor, previous: LeaseRecord?)] = []
    var busy: [BusyAccount] = []
    var granted = false
    defer { if !granted { taken.forEach { $0.lock.close() } } }
    for account in candidates where taken.count < count {
      let paths = files.files(of: account)
      let lock = try files.openLock(paths.lock)
      let locked: Bool
      let previous: LeaseRecord?
      do {
        locked = try lock.tryLockWholeFile()
        previous = try readRecord(paths.record)
      } catch {
        lock.close()
        throw (error as? Errno).map { FileError.unwritable(path: paths.lock, errno: $0.code) } ?? error
      }
      guard locked else {
        // Someone holds the lock: a held lease, or another acquirer deciding for an instant.
        lock.close()
        let shown = previous.flatMap { $0.kind == .held || isUnexpired($0, now: now) ? $0 : nil }
        busy.append(BusyAccount(account: account, record: shown))
        continue
      }
      if let previous, isUnexpired(previous, now: now) {  // a live detached lease
        lock.close()
        busy.append(BusyAccount(account: account, record: previous))
        continue
      }
      taken.append((account, lock, previous))
    }
    guard taken.count == count else { return .busy(busy) }

    // Every lock is ours: write the fences and records. On a failure, nothing stays taken.
    let lease = LeaseID.new(random: random)
    let expiresAt = ttl.map { now.adding(seconds: Int64($0.rounded(.up))) }
    var records: [LeaseRecord] = []
    do {
      for (account, lock, previous) in taken {
        let paths = files.files(of: account)
        let fence = try nextFence(paths, lock: lock, previous: previous)
        let record = LeaseRecord(
          account: account, lease: lease, holder: holder, since: now, expiresAt: expiresAt, fence: fence)
        try files.replace(paths.record, with: LeaseRecordFile.encode(record))
        records.append(record)
      }
    } catch {
      for record in records { try? files.remove(files.files(of: record.account).record) }
      throw error
    }
    granted = true
    guard expiresAt == nil else {
      taken.forEach { $0.lock.close() }  // a detached lease lives in its records
      return .granted(LeaseGrant(lease: lease, records: records, descriptors: []))
    }
    return .granted(LeaseGrant(lease: lease, records: records, descriptors: taken.map(\.lock)))
  }

  public func release(lease: String, now: Timestamp) throws -> [AccountID] {
    guard LeaseID.isValid(lease), try files.prepare(create: false) else { throw LeaseError.unknown(lease: lease) }
    let matching = try allRecords().filter { $0.lease == lease }
    guard !matching.isEmpty else { throw LeaseError.unknown(lease: lease) }
    if let held = matching.first(where: { $0.kind == .held }) {
      guard try isLive(held, now: now) else { throw LeaseError.unknown(lease: lease) }
      throw LeaseError.held(lease: lease, holder: held.holder)
    }
    var freed: [AccountID] = []
    var expired: Timestamp?
    for record in matching {
      let paths = files.files(of: record.account)
      let lock = try files.openLock(paths.lock)
      defer { lock.close() }
      try waitForLock(lock, path: paths.lock)
      // Under the lock: the record may have expired and been taken since it was listed.
      guard let current = try readRecord(paths.record), current.lease == lease else { continue }
      try files.remove(paths.record)
      if isUnexpired(current, now: now) { freed.append(current.account) } else { expired = current.expiresAt }
    }
    guard !freed.isEmpty else {
      throw expired.map { LeaseError.expired(lease: lease, at: $0) } ?? LeaseError.unknown(lease: lease)
    }
    return freed.sorted()
  }

  public func detach(_ grant: LeaseGrant, ttl: Double, now: Timestamp) throws -> LeaseGrant {
    guard ttl > 0, ttl < Double(Timestamp.longestLifetime) else {
      throw CommandError.usage("a lease's ttl must be more than 0 and at most ten years", fix: "give --ttl like 30m")
    }
    guard grant.descriptors.count == grant.records.count, grant.records.allSatisfy({ $0.kind == .held }) else {
      throw LeaseError.unknown(lease: grant.lease)
    }
    // The locks are still ours while the records change; a detached lease lives in its records.
    defer { grant.end() }
    let expiresAt = now.adding(seconds: Int64(ttl.rounded(.up)))
    var records: [LeaseRecord] = []
    do {
      for var record in grant.records {
        record.expiresAt = expiresAt
        try files.replace(files.files(of: record.account).record, with: LeaseRecordFile.encode(record))
        records.append(record)
      }
    } catch {
      // All or none: the ones already detached become held again, and end with the grant.
      for record in grant.records.prefix(records.count) {
        try? files.replace(files.files(of: record.account).record, with: LeaseRecordFile.encode(record))
      }
      throw error
    }
    return LeaseGrant(lease: grant.lease, records: records, descriptors: [])
  }

  /// Each account's own record and lock only: another account's record, however malformed,
  /// says nothing about these, and a store of thousands is not read whole for one account.
  public func leases(of accounts: [AccountID], now: Timestamp) throws -> [LeaseRecord] {
    guard try files.prepare(create: false) else { return [] }
    let wanted = Set(accounts)
    // A few accounts: each one's file by its name. Many (`list` of a large index): one listing
    // of the directory, which holds only the leases there are, instead of an open each.
    if wanted.count > Self.accountsLookedUpByName {
      return try allRecords().filter { wanted.contains($0.account) }.filter { try isLive($0, now: now) }
        .sorted { $0.account < $1.account }
    }
    var live: [LeaseRecord] = []
    for account in wanted.sorted() {
      if let record = try readRecord(files.files(of: account).record), try isLive(record, now: now) {
        live.append(record)
      }
    }
    return live
  }

  /// Up to how many accounts `leases(of:)` opens each one's record by name.
  static let accountsLookedUpByName = 32

  public func leases(now: Timestamp) throws -> [LeaseRecord] {
    guard try files.prepare(create: false) else { return [] }
    var live: [LeaseRecord] = []
    for record in try allRecords() where try isLive(record, now: now) { live.append(record) }
    return live.sorted { $0.account < $1.account }
  }

  // MARK: Records and liveness

  /// Every record in the directory.
  private func allRecords() throws -> [LeaseRecord] {
    var records: [LeaseRecord] = []
    for path in try files.recordFiles() {
      if let record = try readRecord(path) { records.append(record) }
    }
    return records
  }

  /// The record in `path`, which must be the file of the account it names: one copied or
  /// planted into another account's file is refused like a malformed one, never taken as that
  /// account's lease (nor skipped, which would hide it from `leases`).
  private func readRecord(_ path: String) throws(FileError) -> LeaseRecord? {
    guard let bytes = try files.read(path) else { return nil }
    switch LeaseRecordFile.decode(bytes) {
    case .success(let record):
      guard files.files(of: record.account).record == path else {
        let named = Names.printable(record.account.description, limit: 60)
        throw .malformed(path: path, detail: "it is the record of \(named), not of this file's account", backup: nil)
      }
      return record
    case .failure(let problem): throw .malformed(path: path, detail: problem.detail, backup: nil)
    }
  }

  /// A held lease lives while another open file description holds its lock; a detached one
  /// until it expires.
  func isLive(_ record: LeaseRecord, now: Timestamp) throws -> Bool {
    guard record.kind == .held else { return isUnexpired(record, now: now) }
    let path = files.files(of: record.account).lock
    guard let lock = try files.openForReadingIfPresent(path) else { return false }
    defer { lock.close() }
    do {
      return try lock.isLockedElsewhere()
    } catch {
      throw FileError.unreadable(path: path, errno: error.code)
    }
  }

  /// A detached lease before its expiry (a held one has none).
  private func isUnexpired(_ record: LeaseRecord, now: Timestamp) -> Bool {
    record.expiresAt.map { now < $0 } ?? false
  }

  /// Waits, bounded, for an account's lock that someone holds for an instant.
  private func waitForLock(_ lock: FileDescriptor, path: String) throws(FileError) {
    let deadline = monotonicNanoseconds() + UInt64(Self.releaseWaitSeconds) * 1_000_000_000
    var pause = 1_000_000  // nanoseconds, doubling up to 20 ms
    while true {
      do {
        if try lock.tryLockWholeFile() { return }
      } catch {
        throw .unwritable(path: path, errno: error.code)
      }
      guard monotonicNanoseconds() < deadline else { throw .busy(lockPath: path, seconds: Self.releaseWaitSeconds) }
      var request = timespec(tv_sec: 0, tv_nsec: pause)
      nanosleep(&request, nil)
      pause = min(pause * 2, 20_000_000)
    }
  }
}
