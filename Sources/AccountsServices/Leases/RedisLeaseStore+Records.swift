import AccountsCore
import AccountsContract
import AccountsSystem

/// Reading the records of a Redis lease store: one key's, and every key's under its prefixes.
extension RedisLeaseStore {
  /// The record a key holds. `as`: the account it is shown as (nil: as its holder wrote it).
  func record(
    _ value: RedisValue, fence: RedisValue, as account: AccountID?, key: String? = nil
  ) throws(LeaseStoreUnavailable) -> LeaseRecord {
    let shownKey = key.map { " (\(Names.printable($0, limit: 120)))" } ?? ""
    guard case .string(let bytes) = value, let fenceText = fence.text, let number = UInt64(fenceText), number > 0 else {
      throw LeaseStoreUnavailable(
        address: address.description, detail: "a lease key\(shownKey) holds what accounts does not write",
        fix: "delete that key, or give accounts a lease_prefix no other program uses")
    }
    switch LeaseRecordFile.decode(bytes, fence: number) {
    case .success(var record):
      if let key, !key.hasSuffix(":" + record.account.user) {
        throw LeaseStoreUnavailable(
          address: address.description, detail: "a lease key\(shownKey) holds the record of another account",
          fix: "delete that key")
      }
      if let account { record.account = account }
      return record
    case .failure(let problem):
      throw LeaseStoreUnavailable(
        address: address.description, detail: "a lease key\(shownKey) holds a malformed record (\(problem.detail))",
        fix: "delete that key, or give accounts a lease_prefix no other program uses")
    }
  }

  /// A lease read from the store: its key, its value and its record.
  typealias ReadLease = (key: String, value: [UInt8], record: LeaseRecord)

  /// Every lease under this store's prefixes, with its key and value, and every key there that
  /// does not hold a lease accounts wrote (each on its own: one such key hides no other). A held
  /// lease whose keeper has missed its renewals has `lapsesAt`.
  func scan(now: Timestamp) throws -> (leases: [ReadLease], unreadable: [UnreadableLease]) {
    var keys: [String] = []
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
          guard let name = item.text else { throw try connection().garbage("SCAN") }
          // PREFIX:USER, not PREFIX:USER:fence nor another prefix's PREFIX:MORE:USER. (A user
          // may be named `fence`.)
          if !name.dropFirst(prefix.count + 1).contains(":") { keys.append(name) }
        }
        cursor = next
      } while cursor != "0"
    }
    var leases: [ReadLease] = []
    var unreadable: [UnreadableLease] = []
    for chunk in Array(Set(keys)).sorted().chunked(256) {
      let reply = try evaluate(Self.readScript, keys: chunk.flatMap { [$0, Self.fenceKey($0)] }, arguments: [])
      guard case .array(let values) = reply, values.count == chunk.count * 3 else { throw try connection().garbage("read") }
      for (index, key) in chunk.enumerated() {
        let (value, fence, left) = (values[3 * index], values[3 * index + 1], values[3 * index + 2])
        guard value != .null else { continue }  // expired since the scan
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
    }
    return (leases, unreadable)
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
