import AccountsCore
import AccountsContract
import AccountsSystem

/// Reading the records of a Redis lease store: one key's, and every key's under its prefixes.
extension RedisLeaseStore {
  /// The record a key holds. `as`: the account it is shown as (nil: as its holder wrote it).
  func record(
    _ value: RedisValue, fence: RedisValue, as account: AccountID?, key: String
  ) throws(LeaseStoreUnavailable) -> LeaseRecord {
    // What `readScript` could not read: named as it named it.
    if case .error(let message) = value, message.hasPrefix(Self.unreadableMark) {
      throw unreadableKey(key, fence: false, why: String(message.dropFirst(Self.unreadableMark.count)))
    }
    if case .error(let message) = fence, message.hasPrefix(Self.unreadableMark) {
      throw unreadableKey(Self.fenceKey(key), fence: true, why: String(message.dropFirst(Self.unreadableMark.count)))
    }
    guard case .string(let bytes) = value, let fenceText = fence.text, let number = UInt64(fenceText),
      LeaseFence.isValid(number)
    else { throw unreadableKey(key, fence: false, why: "") }
    switch LeaseRecordFile.decode(bytes, fence: number) {
    case .success(var record):
      if !key.hasSuffix(":" + record.account.user) {
        throw LeaseStoreUnavailable(
          address: address.description,
          detail: "a lease key (\(Names.printable(key, limit: 120))) holds the record of another account",
          fix: "delete that key")
      }
      if let account { record.account = account }
      return record
    case .failure(let problem):
      throw unreadableKey(key, fence: false, why: "record: " + problem.detail)
    }
  }

  /// How `readScript` marks a key it could not read: this, then why (`readableFunctions`).
  static let unreadableMark = "UNREADABLE "

  /// A key under a prefix of this store that accounts cannot read: its lease key, or its
  /// `fence` key, and `why` as `readableFunctions` says it (a type, 'long', 'number', 'full'),
  /// "record: PROBLEM" for a malformed record, "name" for a name not in UTF-8 (`key` then
  /// shows its bytes escaped), or "" for anything else. The fix deletes it.
  func unreadableKey(_ key: String, fence: Bool, why: String) -> LeaseStoreUnavailable {
    let what: String
    switch why {
    case "long": what = "holds more than a lease record (\(LeaseRecordFile.longestRecord) bytes)"
    case "number": what = "holds no fence counter (a whole number from 0 to \(LeaseFence.largest))"
    case "full": what = "holds the largest fence accounts hands out (\(LeaseFence.largest)): no lease can get a larger one"
    case _ where why.hasPrefix("record: "): what = "holds a malformed record (\(why.dropFirst(8)))"
    case "": what = "holds what accounts does not write"
    case "name": what = "has a name that is not UTF-8, which accounts does not write"
    default: what = "holds what accounts does not write (a \(Names.printable(why, limit: 20)))"
    }
    let shown = Names.printable(key, limit: 120)
    return LeaseStoreUnavailable(
      address: address.description, detail: "\(fence ? "a fence key" : "a lease key") (\(shown)) \(what)",
      fix: "check that no other program uses it, then delete it (`redis-cli DEL '\(shown)'`), "
        + "or give accounts a lease_prefix no other program uses")
  }

  /// Says, once per key, each candidate `tryAcquire` skipped for a key it cannot read.
  func warnSkipped(_ skipped: [(account: AccountID, problem: LeaseStoreUnavailable)]) {
    for (account, problem) in skipped where warnedKeys.insert(problem.detail).inserted {
      warn("skipped \(account): " + problem.explanation)
    }
  }

  /// A lease read from the store: its key, its value and its record.
  typealias ReadLease = (key: String, value: [UInt8], record: LeaseRecord)

  /// Every lease under this store's prefixes, with its key and value, and every key there that
  /// does not hold a lease accounts wrote (each on its own: one such key hides no other). A held
  /// lease whose keeper has missed its renewals has `lapsesAt`.
  /// With `lease`, only the keys that hold that text are read (as `release` wants).
  func scan(now: Timestamp, lease: String? = nil) throws -> (leases: [ReadLease], unreadable: [UnreadableLease]) {
    var keys: [String] = []
    var unreadable: [UnreadableLease] = []
    for prefix in Set(prefixes).sorted() {
      var cursor = "0"
      var rounds = 0
      repeat {
        rounds += 1
        guard rounds <= 10_000 else { throw try connection().garbage("a SCAN that never ends") }
        let reply = try connectedCall(["SCAN", cursor, "MATCH", Self.globEscaped(prefix) + ":*", "COUNT", "1000"])
        guard case .array(let pair) = reply, pair.count == 2, let next = pair[0].text, case .array(let found) = pair[1]
        else { throw try connection().garbage("SCAN") }
        for item in found {
          guard case .string(let bytes) = item else { throw try connection().garbage("SCAN") }
          // PREFIX:USER, not PREFIX:USER:fence nor another prefix's PREFIX:MORE:USER. (A user
          // may be named `fence`.)
          guard !bytes.dropFirst(prefix.utf8.count + 1).contains(UInt8(ascii: ":")) else { continue }
          let name = String(decoding: bytes, as: UTF8.self)
          guard Array(name.utf8) == bytes else {
            // No account's key: shown with its bytes outside ASCII escaped, never read.
            let shown = bytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
            unreadable.append(UnreadableLease(place: shown, problem: unreadableKey(shown, fence: false, why: "name")))
            continue
          }
          keys.append(name)
        }
        cursor = next
      } while cursor != "0"
    }
    var leases: [ReadLease] = []
    for (key, value, fence, left) in try read(Array(Set(keys)).sorted(), holding: lease) {
      do throws(LeaseStoreUnavailable) {
        var read = try record(value, fence: fence, as: nil, key: key)
        if let ttl = read.keeperTTLMilliseconds, case .integer(let milliseconds) = left, milliseconds >= 0,
          milliseconds < ttl / 2
        {
          read.lapsesAt = now.adding(seconds: (milliseconds + 999) / 1000)
        }
        guard case .string(let bytes) = value else { continue }
        leases.append((key, bytes, read))
      } catch {
        unreadable.append(UnreadableLease(place: key, problem: error))
      }
    }
    return (leases, unreadable)
  }

  /// What `readScript` reads of each of `keys` that holds something: its value (or the mark
  /// of a key it could not read), its fence and the milliseconds it has left. With `holding`,
  /// only the values that hold that text.
  func read(
    _ keys: [String], holding text: String? = nil
  ) throws(LeaseStoreUnavailable) -> [(key: String, value: RedisValue, fence: RedisValue, left: RedisValue)] {
    var found: [(key: String, value: RedisValue, fence: RedisValue, left: RedisValue)] = []
    for chunk in keys.chunked(256) {
      let reply = try evaluate(
        Self.readScript, keys: chunk.flatMap { [$0, Self.fenceKey($0)] }, arguments: text.map { [Array($0.utf8)] } ?? [])
      guard case .array(let values) = reply, values.count == chunk.count * 3 else { throw try connection().garbage("read") }
      for (index, key) in chunk.enumerated() where values[3 * index] != .null {  // else gone since asked
        found.append((key, values[3 * index], values[3 * index + 1], values[3 * index + 2]))
      }
    }
    return found
  }

  static func globEscaped(_ text: String) -> String {
    var out = ""
    for character in text {
      if "*?[]\\".contains(character) { out.append("\\") }
      out.append(character)
    }
    return out
  }
}

extension Array {
  /// Consecutive arrays of at most `size` elements, each indexed from 0.
  func chunked(_ size: Int) -> [[Element]] {
    stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
  }
}
