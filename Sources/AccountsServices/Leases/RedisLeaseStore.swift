import AccountsCore
import AccountsContract
import AccountsJSON
import AccountsSystem
import Glibc
import SecretMemory

/// The lease store shared through Redis, for CI runners on many machines.
///
/// An account's lease is a key, `PREFIX:USER` (the prefix is `accounts:lease:BACKEND` unless
/// the backend's `lease_prefix` names another), set only when absent and with an expiry
/// (`SET NX PX`): whoever sets it holds the account until the key is deleted or expires. Its
/// value is the lease record without the fence; the fence is a counter of its own,
/// `PREFIX:USER:fence`, incremented by every lease of the account and never reset. User names
/// hold no ':', so no account's key is another's fence.
///
/// Taking N accounts is one Lua script, which Redis runs atomically: N or none, never a partial
/// set, never two holders. A held lease (the command form) expires after the held ttl unless a
/// keeper process (`LeaseKeeper`) renews it; the keeper lives until every process holding the
/// lease's pipe has exited, then deletes the keys. Renewing, deleting and detaching compare the
/// value first, so nobody ever touches another holder's lease.
public final class RedisLeaseStore: LeaseStore {
  public let address: RedisAddress
  let password: SecretBytes?
  let timeoutMilliseconds: Int
  /// The key prefix of an account.
  let prefix: (AccountID) -> String
  /// Every prefix this store's accounts use: what `leases` and `release` look through.
  let prefixes: [String]
  /// How long a held lease lasts without its keeper renewing it.
  let heldTTLMilliseconds: Int64
  /// Starts the keeper of a held lease, given its order; returns the write end of the pipe
  /// the keeper watches (close-on-exec). See `LeaseKeeper`.
  let launchKeeper: ([UInt8]) throws -> FileDescriptor
  let random: (Int) -> [UInt8]
  /// Says a warning on stderr (`checkKeepsKeys`).
  let warn: (String) -> Void
  /// The least fence a lease taken now gets: the milliseconds since 1970 (see `acquireScript`).
  let fenceFloor: () -> Int64
  var connected: RedisConnection?
  /// The deadline of the operation under way (`withinDeadline`).
  var deadline: UInt64?
  /// The keys already said to be skipped by this store (`tryAcquire` runs again and again
  /// under --wait: once is enough).
  var warnedKeys: Set<String> = []

  public init(
    address: RedisAddress, password: SecretBytes?, timeoutMilliseconds: Int, prefix: @escaping (AccountID) -> String,
    prefixes: [String], heldTTLMilliseconds: Int64, launchKeeper: @escaping ([UInt8]) throws -> FileDescriptor,
    random: @escaping (Int) -> [UInt8] = { randomBytes(count: $0) }, warn: @escaping (String) -> Void = { _ in },
    fenceFloor: @escaping () -> Int64 = wallClockMilliseconds
  ) {
    self.address = address
    self.password = password
    self.timeoutMilliseconds = timeoutMilliseconds
    self.prefix = prefix
    self.prefixes = prefixes
    self.heldTTLMilliseconds = heldTTLMilliseconds
    self.launchKeeper = launchKeeper
    self.random = random
    self.warn = warn
    self.fenceFloor = fenceFloor
  }

  func key(_ account: AccountID) -> String { prefix(account) + ":" + account.user }

  /// How long the key of a lease with `ttl` lives, in milliseconds: the ttl rounded up to whole
  /// seconds, as the expiry its record shows (`now`, a whole second no later than the moment the
  /// key is set, plus those seconds). The key then never expires before the expiry shown; with
  /// the exact ttl it did, up to a second early, while its holder still counted on it.
  static func keyLifetime(_ ttl: Double) -> Int64 { Int64(ttl.rounded(.up)) * 1000 }
  static func fenceKey(_ key: String) -> String { key + ":fence" }

  func connection() throws(LeaseStoreUnavailable) -> RedisConnection {
    // One kept while this command logged in may have been closed meanwhile by the server's
    // `timeout`: `lease --ttl` then failed to detach its lease after a slow login.
    if let connected, !connected.isClosed {
      connected.deadline = deadline
      return connected
    }
    let made = try RedisConnection(
      address, password: password, timeoutMilliseconds: timeoutMilliseconds, deadline: deadline)
    connected = made
    return made
  }

  /// Runs `body`, one of this store's operations (taking accounts, each try of --wait;
  /// reading the leases; releasing one; detaching), with one deadline for all its calls:
  /// the timeout from now. An operation within another keeps the outer one's.
  func withinDeadline<Value>(_ body: () throws -> Value) rethrows -> Value {
    guard deadline == nil else { return try body() }
    deadline = monotonicNanoseconds() + UInt64(max(timeoutMilliseconds, 1)) * 1_000_000
    defer { deadline = nil }
    return try body()
  }

  /// Runs `script`; a connection lost on the way is not used again.
  func evaluate(_ script: String, keys: [String], arguments: [[UInt8]]) throws(LeaseStoreUnavailable) -> RedisValue {
    let redis = try connection()
    let reply: RedisValue
    do {
      reply = try redis.call(
        [Array("EVAL".utf8), Array(script.utf8), Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments)
    } catch {
      connected = nil
      throw error
    }
    return try checked(reply, redis)
  }

  /// `reply`, unless it is an error: NOAUTH is a password missing, any other error garbage.
  private func checked(_ reply: RedisValue, _ redis: RedisConnection) throws(LeaseStoreUnavailable) -> RedisValue {
    guard case .error(let message) = reply else { return reply }
    if message.hasPrefix("NOAUTH") { throw RedisConnection.asksForPassword(address) }
    throw redis.garbage("an error: \(RedisConnection.shown(message))")
  }

  // MARK: LeaseStore

  public func tryAcquire(
    _ candidates: [AccountID], count: Int, holder: LeaseHolder, ttl: Double?, now: Timestamp
  ) throws -> LeaseAttempt {
    try withinDeadline {
      try checkKeepsKeys()
      // One key, one account: backends sharing a lease_prefix name one pool, where qa1@corp and
      // qa1@corp2 are one account, which one lease must not take twice.
      var seen: [String: AccountID] = [:]
      var namedTwice: (AccountID, AccountID)?
      let candidates = candidates.filter { candidate in
        guard let first = seen[key(candidate)] else {
          seen[key(candidate)] = candidate
          return true
        }
        if first != candidate, namedTwice == nil { namedTwice = (first, candidate) }
        return false
      }
      if let (first, second) = namedTwice, count > candidates.count {
        throw CommandError.usage(
          "\(first) and \(second) are one account (their backends share the lease_prefix \(prefix(first)))",
          fix: "name only one of them, or lower --count")
      }
      guard count >= 1, count <= candidates.count else {
        throw CommandError.usage(
          "cannot lease \(count) of \(candidates.count) account(s)", fix: "name at least as many accounts as --count")
      }
      if let ttl, !(ttl > 0 && ttl < Double(Timestamp.longestLifetime)) {
        throw CommandError.usage("a lease's ttl must be more than 0 and at most ten years", fix: "give --ttl like 30m")
      }
      let lease = LeaseID.new(random: random)
      let expiresAt = ttl.map { now.adding(seconds: Int64($0.rounded(.up))) }
      let milliseconds = ttl.map(Self.keyLifetime) ?? heldTTLMilliseconds
      let records = candidates.map {
        LeaseRecord(
          account: $0, lease: lease, holder: holder, since: now, expiresAt: expiresAt, fence: 1,
          keeperTTLMilliseconds: ttl == nil ? milliseconds : nil)
      }
      let keys = candidates.map(key)
      let values = records.map { LeaseRecordFile.encode($0, withFence: false) }
      let setAt = monotonicNanoseconds()  // no later than Redis starts the keys' ttl
      let reply = try evaluate(
        Self.acquireScript, keys: keys.flatMap { [$0, Self.fenceKey($0)] },
        arguments: [Array(String(count).utf8), Array(String(milliseconds).utf8), Array(String(LeaseFence.floor(wallClockMilliseconds: fenceFloor())).utf8)]
          + values)
      guard case .array(let items) = reply, items.count == 3, case .array(let skipped) = items[1],
        case .array(let entries) = items[2]
      else { throw try connection().garbage("acquire") }
      let outcome = items[0]
      func candidate(_ value: RedisValue) throws -> Int {
        guard case .integer(let index) = value, candidates.indices.contains(Int(index) - 1) else {
          throw try connection().garbage("acquire")
        }
        return Int(index) - 1
      }
      // A candidate whose keys accounts cannot read is skipped, said, and the others taken: one
      // such key must not keep a pool from being leased. Taking one is garbage from the store
      // (exit 8), never an account being taken (exit 10), which --wait would wait out in full.
      var unreadable: [(account: AccountID, problem: LeaseStoreUnavailable)] = []
      for triple in skipped.chunked(3) {
        guard triple.count == 3, let why = triple[2].text, triple[1] == .integer(1) || triple[1] == .integer(2) else {
          throw try connection().garbage("acquire")
        }
        let index = try candidate(triple[0])
        let fence = triple[1] == .integer(2)
        unreadable.append(
          (candidates[index], unreadableKey(fence ? Self.fenceKey(keys[index]) : keys[index], fence: fence, why: why)))
      }
      if outcome == .integer(0) {
        var busy: [BusyAccount] = []
        for triple in entries.chunked(3) {
          guard triple.count == 3 else { throw try connection().garbage("acquire") }
          let index = try candidate(triple[0])
          do throws(LeaseStoreUnavailable) {
            let held = try record(triple[1], fence: triple[2], as: candidates[index], key: keys[index])
            busy.append(BusyAccount(account: candidates[index], record: held))
          } catch {
            unreadable.append((candidates[index], error))
          }
        }
        if let first = unreadable.first, count > candidates.count - unreadable.count { throw first.problem }
        warnSkipped(unreadable)
        return .busy(busy)
      }
      var granted: [LeaseRecord] = []
      var grantedKeys: [String] = []
      var grantedValues: [[UInt8]] = []
      for pair in entries.chunked(2) {
        guard pair.count == 2, case .integer(let fence) = pair[1], fence > 0, LeaseFence.isValid(UInt64(fence)) else {
          throw try connection().garbage("acquire")
        }
        let index = try candidate(pair[0])
        var record = records[index]
        record.fence = UInt64(fence)
        granted.append(record)
        grantedKeys.append(keys[index])
        grantedValues.append(values[index])
      }
      guard outcome == .integer(1), granted.count == count else { throw try connection().garbage("acquire") }
      warnSkipped(unreadable)
      guard expiresAt == nil else { return .granted(LeaseGrant(lease: lease, records: granted, descriptors: [])) }

      // A held lease lives while its keeper renews it.
      let order = LeaseKeeper.Order(
        address: address, password: password, ttlMilliseconds: milliseconds, setAtNanoseconds: setAt,
        timeoutMilliseconds: timeoutMilliseconds, lease: lease, keys: grantedKeys, values: grantedValues)
      let pipe: FileDescriptor
      var encoded = order.encoded()  // holds the password
      defer { wipe(&encoded) }
      do {
        pipe = try launchKeeper(encoded)
      } catch {
        _ = try? delete(keys: grantedKeys, values: grantedValues)
        throw error
      }
      return .granted(LeaseGrant(lease: lease, records: granted, descriptors: [pipe]))
    }
  }

  public func release(lease: String, now: Timestamp) throws -> [AccountID] {
    try withinDeadline {
      guard LeaseID.isValid(lease) else { throw LeaseError.unknown(lease: lease) }
      // Only the leases it can read: a key that holds garbage is not this lease.
      let matching = try scan(now: now, lease: lease).leases.filter { $0.record.lease == lease }
      guard !matching.isEmpty else { throw LeaseError.unknown(lease: lease) }
      if let held = matching.first(where: { $0.record.kind == .held }) {
        throw LeaseError.held(lease: lease, holder: held.record.holder)
      }
      let deleted = try delete(keys: matching.map(\.key), values: matching.map(\.value))
      let freed = zip(matching, deleted).filter(\.1).map(\.0.record.account)
      guard !freed.isEmpty else { throw LeaseError.unknown(lease: lease) }
      return freed.sorted()
    }
  }

  public func detach(_ grant: LeaseGrant, ttl: Double, now: Timestamp) throws -> LeaseGrant {
    try withinDeadline {
      guard ttl > 0, ttl < Double(Timestamp.longestLifetime) else {
        throw CommandError.usage("a lease's ttl must be more than 0 and at most ten years", fix: "give --ttl like 30m")
      }
      guard grant.records.allSatisfy({ $0.kind == .held }) else { throw LeaseError.unknown(lease: grant.lease) }
      // The keeper still renews the held lease while its records change; once they have, its
      // comparisons fail and it leaves them be.
      defer { grant.end() }
      let expiresAt = now.adding(seconds: Int64(ttl.rounded(.up)))
      let detached = grant.records.map { record in
        var record = record
        record.expiresAt = expiresAt
        record.keeperTTLMilliseconds = nil
        return record
      }
      var arguments: [[UInt8]] = [Array(String(Self.keyLifetime(ttl)).utf8)]
      for (old, new) in zip(grant.records, detached) {
        arguments.append(LeaseRecordFile.encode(old, withFence: false))
        arguments.append(LeaseRecordFile.encode(new, withFence: false))
      }
      let reply = try evaluate(Self.detachScript, keys: grant.records.map { key($0.account) }, arguments: arguments)
      guard reply == .integer(1) else {
        throw LeaseStoreUnavailable(
          address: address.description,
          detail: "the lease of \(grant.accounts.map(\.description).joined(separator: ", ")) ended before it could be detached",
          fix: "take it again; a held lease lives \(heldTTLMilliseconds / 1000) s without its keeper")
      }
      return LeaseGrant(lease: grant.lease, records: detached, descriptors: [])
    }
  }

  public func leases(now: Timestamp) throws -> [LeaseRecord] {
    let survey = try survey(now: now)
    if let first = survey.unreadable.first { throw first.problem }
    return survey.records
  }

  public func survey(now: Timestamp) throws -> LeaseSurvey {
    try withinDeadline {
      try checkKeepsKeys()
      let (leases, unreadable) = try scan(now: now)
      return LeaseSurvey(records: leases.map(\.record).sorted { $0.account < $1.account }, unreadable: unreadable)
    }
  }

  public func leases(of accounts: [AccountID], now: Timestamp) throws -> [LeaseRecord] {
    try withinDeadline {
      // Two accounts may share a key (backends sharing a lease_prefix): each is shown as given.
      let found = Dictionary(try read(Array(Set(accounts.map(key))).sorted()).map { ($0.key, $0) }) { first, _ in first }
      var records: [LeaseRecord] = []
      for account in accounts {
        guard let (key, value, fence, _) = found[key(account)] else { continue }
        records.append(try record(value, fence: fence, as: account, key: key))
      }
      return records
    }
  }

  // MARK: Calls

  func connectedCall(_ arguments: [String]) throws(LeaseStoreUnavailable) -> RedisValue {
    let redis = try connection()
    do throws(LeaseStoreUnavailable) {
      return try checked(try redis.call(arguments), redis)
    } catch {
      connected = nil
      throw error
    }
  }

  /// Deletes each key that still holds its value; which ones were deleted.
  func delete(keys: [String], values: [[UInt8]]) throws(LeaseStoreUnavailable) -> [Bool] {
    guard !keys.isEmpty else { return [] }
    let reply = try evaluate(Self.deleteScript, keys: keys, arguments: values)
    guard case .array(let results) = reply, results.count == keys.count else { throw try connection().garbage("delete") }
    return results.map { $0 == .integer(1) }
  }
}
