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

  /// Every lease under this store's prefixes, with its key and value.
  func scan() throws -> [(key: String, value: [UInt8], record: LeaseRecord)] {
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
    var leases: [(key: String, value: [UInt8], record: LeaseRecord)] = []
    for chunk in Array(Set(keys)).sorted().chunked(256) {
      let reply = try connectedCall(["MGET"] + chunk.flatMap { [$0, Self.fenceKey($0)] })
      guard case .array(let values) = reply, values.count == chunk.count * 2 else { throw try connection().garbage("MGET") }
      for (index, key) in chunk.enumerated() {
        guard case .string(let bytes) = values[2 * index] else { continue }  // expired since the scan
        leases.append((key, bytes, try record(values[2 * index], fence: values[2 * index + 1], as: nil, key: key)))
      }
    }
    return leases
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
