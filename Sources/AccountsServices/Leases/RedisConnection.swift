import AccountsCore
import AccountsContract
import AccountsSystem
import CHiredis
import Glibc
import SecretMemory

/// One reply of Redis.
enum RedisValue: Equatable {
  case string([UInt8])
  case integer(Int64)
  case array([RedisValue])
  case null
  case status(String)
  case error(String)

  var text: String? {
    if case .string(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
    return nil
  }
}

/// A connection to Redis through hiredis (loaded on first use), every call bounded by the
/// timeout given, and by the deadline when one is set. Not shared between threads.
final class RedisConnection {
  let address: RedisAddress
  /// How long a whole reply may take to come.
  private let timeoutMilliseconds: Int
  private let context: UnsafeMutablePointer<redisContext>
  /// When the calls of the work under way must all have been answered (`monotonicNanoseconds`):
  /// none is sent after it, and none waits past it. Nil: each call has the timeout.
  var deadline: UInt64?

  /// Connects, authenticates with `password` (as `address.user` when there is one) and selects
  /// the database, all by `deadline` when one is given.
  init(
    _ address: RedisAddress, password: SecretBytes?, timeoutMilliseconds: Int, deadline: UInt64? = nil
  ) throws(LeaseStoreUnavailable) {
    self.address = address
    self.deadline = deadline
    if let problem = accounts_redis_load() {
      throw LeaseStoreUnavailable(address: address.description, detail: String(cString: problem))
    }
    self.timeoutMilliseconds = max(timeoutMilliseconds, 1)
    let timeout = try Self.allowed(max(timeoutMilliseconds, 1), until: deadline, address: address)
    let made: UnsafeMutablePointer<redisContext>?
    switch address.endpoint {
    case .tcp(let host, let port): made = accounts_redis_connect_tcp(host, Int32(port), timeout)
    case .unixSocket(let path): made = accounts_redis_connect_unix(path, timeout)
    }
    guard let made else { throw LeaseStoreUnavailable(address: address.description, detail: "out of memory") }
    if let error = accounts_redis_error(made) {
      let detail = String(cString: error)
      accounts_redis_free(made)
      throw LeaseStoreUnavailable(
        address: address.description, detail: "cannot connect: \(detail)",
        fix: "check that Redis runs there and that this machine can reach it")
    }
    // From here on, deinit frees the context, also when this initializer throws.
    context = made
    if let password {
      var arguments: [[UInt8]] = [Array("AUTH".utf8)]
      if let user = address.user { arguments.append(Array(user.utf8)) }
      arguments.append(password.withUnsafeBytes { Array($0) })
      defer { wipe(&arguments[arguments.count - 1]) }
      if case .error(let message) = try call(arguments) {
        // Redis 6 and later: "... called without any password configured ...", before: "...
        // but no password is set".
        if message.includes("without any password configured") || message.includes("no password is set") {
          throw LeaseStoreUnavailable(
            address: address.description, detail: "it has no password, and accounts has one for it",
            fix: "drop it with `accounts backend set NAME --unset lease_store_password`")
        }
        // Only the reply's error code: a server that echoed what it was sent would print the
        // password.
        let code = message.prefix { $0 != " " }
        let shownCode = !code.isEmpty && code.count <= 20 && code.allSatisfy { $0.isASCII && $0.isUppercase } ? " (\(code))" : ""
        throw LeaseStoreUnavailable(
          address: address.description, detail: "it refused the password\(shownCode)",
          fix: "give the right one with `accounts backend set NAME --secret lease_store_password`")
      }
    }
    if address.database != 0 {
      if case .error(let message) = try call(["SELECT", String(address.database)]) {
        if message.hasPrefix("NOAUTH") { throw Self.asksForPassword(address) }
        throw LeaseStoreUnavailable(
          address: address.description, detail: "cannot use database \(address.database) (\(Self.shown(message)))")
      }
    }
  }

  deinit { accounts_redis_free(context) }

  /// Whether the server closed this connection since its last command (or it is otherwise of
  /// no more use): a command sent now would never run there.
  var isClosed: Bool { accounts_redis_closed(context) != 0 }

  /// One command; an error reply comes back as `.error`, for the caller to judge.
  func call(_ arguments: [String]) throws(LeaseStoreUnavailable) -> RedisValue {
    try call(arguments.map { Array($0.utf8) })
  }

  func call(_ arguments: [[UInt8]]) throws(LeaseStoreUnavailable) -> RedisValue {
    var pointers: [UnsafePointer<CChar>?] = []
    var lengths: [Int] = []
    var storage: [UnsafeMutablePointer<UInt8>] = []
    defer {
      for (buffer, length) in zip(storage, lengths) {
        wipe(buffer, count: length)
        buffer.deallocate()
      }
    }
    for argument in arguments {
      let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(argument.count, 1))
      argument.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: argument.count) }
      storage.append(buffer)
      pointers.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: CChar.self))
      lengths.append(argument.count)
    }
    let timeout = try Self.allowed(timeoutMilliseconds, until: deadline, address: address)
    let reply = accounts_redis_command(context, Int32(arguments.count), &pointers, &lengths, timeout)
    guard let reply else {
      // Late by the timeout or by the deadline, a millisecond apart: one case, one message.
      if accounts_redis_late(context) != 0 || deadline.map({ monotonicNanoseconds() >= $0 }) == true {
        throw Self.pastDeadline(address, timeoutMilliseconds)
      }
      let detail = accounts_redis_error(context).map { String(cString: $0) } ?? "no reply"
      // Refused before it was read in full: over the limits of a reply, or no Redis reply.
      if accounts_redis_refused(context) != 0 { throw garbage(detail) }
      throw LeaseStoreUnavailable(
        address: address.description, detail: "lost the connection: \(detail)",
        fix: "check that Redis runs there and answers within the timeout")
    }
    defer { accounts_redis_free_reply(reply) }
    return try Self.value(reply, address: address, depth: 0)
  }

  /// How long the next call may wait: `timeout`, or what is left until `deadline` when that is
  /// less. Throws once the deadline has passed.
  private static func allowed(
    _ timeout: Int, until deadline: UInt64?, address: RedisAddress
  ) throws(LeaseStoreUnavailable) -> Int {
    guard let deadline else { return timeout }
    let now = monotonicNanoseconds()
    guard now < deadline else { throw pastDeadline(address, timeout) }
    return min(timeout, Int((deadline - now + 999_999) / 1_000_000))
  }

  /// The deadline passed: the store did not answer all this work asked of it in time.
  private static func pastDeadline(_ address: RedisAddress, _ timeout: Int) -> LeaseStoreUnavailable {
    LeaseStoreUnavailable(
      address: address.description,
      detail: "it did not answer everything asked within \(DurationText.seconds(milliseconds: Int64(timeout))) "
        + "(ACCOUNTS_NETWORK_TIMEOUT)",
      fix: "check that Redis runs there and is not overloaded, or give ACCOUNTS_NETWORK_TIMEOUT more seconds")
  }

  /// A reply a caller did not expect: Redis (or whatever answers in its place) said nonsense.
  func garbage(_ what: String) -> LeaseStoreUnavailable {
    LeaseStoreUnavailable(
      address: address.description, detail: "it answered what Redis would not (\(what))",
      fix: "check that the address names a Redis server (2.6 or later, with Lua scripting)")
  }

  private static func value(
    _ reply: UnsafeMutablePointer<redisReply>, address: RedisAddress, depth: Int
  ) throws(LeaseStoreUnavailable) -> RedisValue {
    let item = reply.pointee
    switch item.type {
    case REDIS_REPLY_STRING:
      return .string(item.len == 0 ? [] : Array(UnsafeRawBufferPointer(start: item.str, count: item.len)))
    case REDIS_REPLY_STATUS, REDIS_REPLY_ERROR:
      let text = item.len == 0 ? "" : String(decoding: UnsafeRawBufferPointer(start: item.str, count: item.len), as: UTF8.self)
      return item.type == REDIS_REPLY_STATUS ? .status(text) : .error(text)
    case REDIS_REPLY_INTEGER: return .integer(item.integer)
    case REDIS_REPLY_NIL: return .null
    case REDIS_REPLY_ARRAY:
      guard depth < 4 else { break }
      var values: [RedisValue] = []
      values.reserveCapacity(item.elements)
      for index in 0..<item.elements {
        guard let element = item.element[index] else { return .null }
        values.append(try value(element, address: address, depth: depth + 1))
      }
      return .array(values)
    default: break
    }
    throw LeaseStoreUnavailable(
      address: address.description,
      detail: "it answered what Redis would not (a reply nested too deep, or of no known type)",
      fix: "check that the address names a Redis server (2.6 or later, with Lua scripting)")
  }

  /// The server wants a password and was given none (its reply began with NOAUTH).
  static func asksForPassword(_ address: RedisAddress) -> LeaseStoreUnavailable {
    LeaseStoreUnavailable(
      address: address.description, detail: "it asks for a password",
      fix: "keep it in the keyring with `accounts backend set NAME --secret lease_store_password`")
  }

  /// A server's message, as much of it as fits a line.
  static func shown(_ message: String) -> String { Names.printable(message, limit: 80) }
}
