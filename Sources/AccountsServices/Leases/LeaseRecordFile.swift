import AccountsCore
import AccountsContract
import AccountsJSON

/// The text of the local store's files: a lease record and a fence counter, both small JSON
/// objects with a format version, so that a later accounts can tell what it reads.
enum LeaseRecordFile {
  static let version: Int64 = 1

  /// The most bytes a record of a saved account takes: its longest fields (a user name of 256
  /// characters, each escaped as a surrogate pair; a host of 255) fit in less than half. A
  /// shared store reads nothing longer (`RedisLeaseStore.readableFunctions`).
  static let longestRecord = 8192

  /// What is wrong with a record file.
  struct Problem: Error {
    let detail: String
    init(_ detail: String) { self.detail = detail }
  }

  /// The record as a file holds it; `withFence: false` leaves the fence out (a Redis store keeps
  /// it in a counter of its own, which `decode(_:fence:)` is given).
  static func encode(_ record: LeaseRecord, withFence: Bool = true) -> [UInt8] {
    var object: JSONObject = [
      "version": .number(JSONNumber(version)),
      "account": .object(["user": .string(record.account.user), "backend": .string(record.account.backend)]),
      "lease": .string(record.lease),
      "kind": .string(record.kind.rawValue),
      "holder": .object(["host": .string(record.holder.host), "pid": .number(JSONNumber(Int64(record.holder.pid)))]),
      "since": .string(record.since.iso8601),
      "expires_at": record.expiresAt.map { .string($0.iso8601) } ?? .null,
    ]
    if withFence { object["fence"] = .number(JSONNumber(Int64(clamping: record.fence))) }
    if let ttl = record.keeperTTLMilliseconds { object["keeper_ttl_ms"] = .number(JSONNumber(ttl)) }
    return Array((JSON.serialize(.object(object), pretty: false) + "\n").utf8)
  }

  /// The record in `bytes`, or a description of what is wrong with them.
  /// `fence`, when given, is the record's (its bytes then have none).
  static func decode(_ bytes: [UInt8], fence given: UInt64? = nil) -> Result<LeaseRecord, Problem> {
    do {
      let reader = JSONReader(try JSON.parse(bytes))
      let version = try reader.int64("version")
      guard version == Self.version else { return .failure(Problem("format version \(version), not \(Self.version)")) }
      let account = try reader.object("account")
      let holder = try reader.object("holder")
      guard let since = Timestamp(iso8601: try reader.string("since")) else {
        return .failure(Problem("since: not a time"))
      }
      var expiresAt: Timestamp?
      if let text = try reader.optionalString("expires_at") {
        guard let time = Timestamp(iso8601: text) else { return .failure(Problem("expires_at: not a time")) }
        expiresAt = time
      }
      let kind = try reader.string("kind")
      guard kind == (expiresAt == nil ? LeaseKind.held : .detached).rawValue else {
        return .failure(Problem("kind '\(Names.printable(kind, limit: 20))' does not match expires_at"))
      }
      let fence = try given.map { Int64(clamping: $0) } ?? reader.int64("fence")
      let pid = try holder.int64("pid")
      guard LeaseFence.isValid(UInt64(clamping: fence)), let pid = Int32(exactly: pid) else {
        return .failure(Problem("fence or pid out of range"))
      }
      // The id and the host reach messages, a terminal and `accounts release` unquoted: only
      // what this tool writes is read back.
      let lease = try reader.string("lease")
      guard LeaseID.isValid(lease) else { return .failure(Problem("lease: not a lease id")) }
      let host = try holder.string("host")
      guard LeaseHolder.isHostName(host) else { return .failure(Problem("holder.host: not a host name")) }
      let keeperTTL = try reader.optionalInt64("keeper_ttl_ms")
      guard keeperTTL.map({ $0 > 0 && expiresAt == nil }) ?? true else {
        return .failure(Problem("keeper_ttl_ms: not a held lease's ttl"))
      }
      let record = LeaseRecord(
        account: AccountID(user: try account.string("user"), backend: try account.string("backend")),
        lease: lease, holder: LeaseHolder(host: host, pid: pid),
        since: since, expiresAt: expiresAt, fence: UInt64(fence), keeperTTLMilliseconds: keeperTTL)
      return .success(record)
    } catch let error as JSONParseError {
      return .failure(Problem(error.description))
    } catch let error as JSONShapeError {
      return .failure(Problem(error.description))
    } catch {
      return .failure(Problem("\(error)"))
    }
  }

  static func encodeFence(_ fence: UInt64) -> [UInt8] {
    Array("{\"version\":\(version),\"fence\":\(fence)}\n".utf8)
  }

  /// The counter in `bytes`; nil when they are not one.
  static func decodeFence(_ bytes: [UInt8]) -> UInt64? {
    guard let reader = try? JSONReader(JSON.parse(bytes)), (try? reader.int64("version")) == version,
      let fence = try? reader.int64("fence"), fence >= 0
    else { return nil }
    return UInt64(fence)
  }
}
