import AccountsCore
import AccountsContract
import AccountsJSON
import AccountsSystem
import Glibc
import SecretMemory

/// The process that keeps a held Redis lease alive (`accounts __lease-keeper`, started by
/// `RedisLeaseStore.tryAcquire`).
///
/// It reads its order (one line of JSON) from its standard input, a pipe whose write end the
/// lease's processes hold: `accounts lease` itself, and after `exec` the command and whatever
/// it starts that keeps the descriptor, as they hold a local lease's lock. Until that pipe ends
/// (every holder has exited, however: SIGKILL included) it renews the lease at a third of its
/// ttl; then it deletes the keys that still hold its values, and exits. If the keeper itself
/// is killed, the lease ends within one ttl. It ignores the signals a terminal or a process
/// group sends, so Ctrl-C or a `kill` of the group ends the command, which ends the lease.
///
/// Losing the store while the command runs is said on stderr, and the command keeps running:
/// the account may be taken over meanwhile, which the fence tells.
public enum LeaseKeeper {
  /// What the keeper keeps: where, the keys and the values they must still hold.
  public struct Order: Equatable {
    var address: RedisAddress
    var password: SecretBytes?
    var ttlMilliseconds: Int64
    /// When the keys were set (`monotonicNanoseconds`, one clock for every process of this
    /// machine): the renewals count from there, not from the keeper's start, which may be late.
    var setAtNanoseconds: UInt64
    var timeoutMilliseconds: Int
    var lease: String
    var keys: [String]
    var values: [[UInt8]]

    /// One line: JSON, the password in hex (never anywhere but this pipe).
    func encoded() -> [UInt8] {
      var object: JSONObject = [
        "address": .string(address.description),
        "ttl_ms": .number(JSONNumber(ttlMilliseconds)),
        "set_at_ns": .number(JSONNumber(Int64(clamping: setAtNanoseconds))),
        "timeout_ms": .number(JSONNumber(Int64(timeoutMilliseconds))),
        "lease": .string(lease),
        "keys": .array(keys.map { .string($0) }),
        "values": .array(values.map { .string(String(decoding: $0, as: UTF8.self)) }),
      ]
      if let password {
        object["password"] = .string(password.withUnsafeBytes { Self.hex($0) })
      }
      return Array((JSON.serialize(.object(object), pretty: false) + "\n").utf8)
    }

    static func decode(_ bytes: [UInt8]) -> Order? {
      guard let reader = try? JSONReader(JSON.parse(bytes)),
        let text = try? reader.string("address"), case .redis(let address)? = try? LeaseStoreAddress.parse(text),
        let ttl = try? reader.int64("ttl_ms"), ttl > 0,
        let setAt = try? reader.int64("set_at_ns"), setAt >= 0,
        let timeout = try? reader.int64("timeout_ms"), timeout > 0, timeout < 86_400_000,
        let lease = try? reader.string("lease"),
        let keys = try? reader.array("keys").map({ try $0.asString() }),
        let values = try? reader.array("values").map({ try $0.asString() }),
        keys.count == values.count, !keys.isEmpty
      else { return nil }
      var password: SecretBytes?
      if let hex = try? reader.optionalString("password") {
        guard var bytes = unhex(hex) else { return nil }
        password = SecretBytes(consuming: &bytes)
      }
      return Order(
        address: address, password: password, ttlMilliseconds: ttl, setAtNanoseconds: UInt64(setAt),
        timeoutMilliseconds: Int(timeout), lease: lease, keys: keys, values: values.map { Array($0.utf8) })
    }

    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
      let digits = Array("0123456789abcdef".utf8)
      var out: [UInt8] = []
      for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 15)])
      }
      return String(decoding: out, as: UTF8.self)
    }

    static func unhex(_ text: String) -> [UInt8]? {
      let bytes = Array(text.utf8)
      guard bytes.count % 2 == 0 else { return nil }
      func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        default: nil
        }
      }
      var out: [UInt8] = []
      for index in stride(from: 0, to: bytes.count, by: 2) {
        guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
        out.append(high << 4 | low)
      }
      return out
    }
  }

  /// Keeps the lease ordered on `input` until `input` ends; messages go to `say`. Returns the
  /// exit status.
  public static func run(input: FileDescriptor, say: @escaping (String) -> Void) -> Int32 {
    ignoreTerminalAndGroupSignals()
    guard var line = input.readFirstLine() else {
      say("accounts: lease keeper: no order on standard input")
      return ExitStatus.usage.rawValue
    }
    defer { wipe(&line) }
    guard let order = Order.decode(line) else {
      say("accounts: lease keeper: its order is malformed")
      return ExitStatus.usage.rawValue
    }
    var keeper = Keeper(order: order, say: say)
    keeper.keep(input: input)
    return 0
  }

  /// The renewing loop and its state.
  struct Keeper {
    let order: Order
    let say: (String) -> Void
    var connection: RedisConnection?
    /// The keys still ours (nil once lost or detached).
    var kept: [Bool]
    var storeLost = false

    init(order: Order, say: @escaping (String) -> Void) {
      self.order = order
      self.say = say
      kept = Array(repeating: true, count: order.keys.count)
    }

    mutating func keep(input: FileDescriptor) {
      let interval = max(order.ttlMilliseconds / 3, 1)
      // A third of the ttl after the keys were set: at once when a keeper slow to start is
      // already past it (counted from its own start, the keys could expire first).
      var next = order.setAtNanoseconds + UInt64(interval) * 1_000_000
      while kept.contains(true) {
        let now = monotonicNanoseconds()
        if now >= next {
          let renewed = renew()
          // After a failure, try again sooner: the lease lasts one ttl from the last renewal.
          next = monotonicNanoseconds() + UInt64(renewed ? interval : max(interval / 2, 1)) * 1_000_000
          continue
        }
        let wait = Int32(min((next - now) / 1_000_000 + 1, UInt64(Int32.max)))
        guard input.awaitEnd(milliseconds: wait) else { continue }  // timed out, or a holder wrote
        release()
        return
      }
    }

    /// The connection, made again when it was lost; nil (and the problem said through `failed`)
    /// when the store cannot be reached.
    mutating func open(failed: (inout Keeper, String) -> Void = { $0.lost($1) }) -> RedisConnection? {
      if let connection { return connection }
      do {
        // Each call waits at most a third of the ttl too: a store that hangs for longer must be
        // said to be lost (and tried again) before the lease runs out, not after.
        let timeout = min(order.timeoutMilliseconds, Int(max(order.ttlMilliseconds / 3, 100)))
        connection = try RedisConnection(order.address, password: order.password, timeoutMilliseconds: timeout)
      } catch {
        failed(&self, error.message)
      }
      return connection
    }

    /// `arguments` run on the connection, made again (once) when the one kept since the last
    /// call fails: it sat idle for a third of the ttl, long enough for a server's `timeout` or a
    /// NAT to have closed it, which says nothing about the store. Nil (the problem said through
    /// `failed`) when the store cannot be reached.
    mutating func call(_ arguments: [[UInt8]], failed: (inout Keeper, String) -> Void) -> RedisValue? {
      let reused = connection != nil
      guard let redis = open(failed: failed) else { return nil }
      do {
        return try redis.call(arguments)
      } catch {
        connection = nil
        if reused { return call(arguments, failed: failed) }
        failed(&self, error.message)
        return nil
      }
    }

    mutating func lost(_ why: String) {
      connection = nil
      guard !storeLost else { return }
      storeLost = true
      let ttl = DurationText.seconds(milliseconds: order.ttlMilliseconds)
      say(
        "accounts: lease: cannot renew lease \(order.lease): \(why); the command keeps running, but its accounts "
          + "may be taken over once the lease's \(ttl) run out (ACCOUNTS_LEASE_FENCE tells)")
    }

    /// Extends every key still ours; false when the store could not be reached.
    mutating func renew() -> Bool {
      let indices = kept.indices.filter { kept[$0] }
      let arguments: [[UInt8]] = [Array(String(order.ttlMilliseconds).utf8)] + indices.map { order.values[$0] }
      var call: [[UInt8]] = [Array("EVAL".utf8), Array(RedisLeaseStore.renewScript.utf8)]
      call.append(Array(String(indices.count).utf8))
      for index in indices { call.append(Array(order.keys[index].utf8)) }
      guard let reply = self.call(call + arguments, failed: { $0.lost($1) }) else { return false }
      guard case .array(let results) = reply, results.count == indices.count else {
        lost("it answered what Redis would not")
        return false
      }
      if storeLost {
        storeLost = false
        say("accounts: lease: renewing lease \(order.lease) again")
      }
      for (index, result) in zip(indices, results) where result != .integer(1) {
        kept[index] = false
        // Detached by `accounts lease --ttl` (its value changed, its lease id did not): not lost.
        if case .string(let bytes) = result, case .success(let record) = LeaseRecordFile.decode(bytes, fence: 1),
          record.lease == order.lease
        {
          continue
        }
        say(
          "accounts: lease: lost the lease of \(Names.printable(order.keys[index], limit: 120)) (\(order.lease)): it "
            + "expired or was deleted, and another holder may use the account now (ACCOUNTS_LEASE_FENCE tells)")
      }
      return true
    }

    /// Deletes the keys that still hold their values.
    mutating func release() {
      let indices = kept.indices.filter { kept[$0] }
      let within = DurationText.seconds(milliseconds: order.ttlMilliseconds)
      let cannotEnd = { (keeper: inout Keeper, why: String) in
        keeper.say("accounts: lease: could not end lease \(keeper.order.lease): \(why); it ends by itself within \(within)")
      }
      guard !indices.isEmpty else { return }
      var arguments: [[UInt8]] = [Array("EVAL".utf8), Array(RedisLeaseStore.deleteScript.utf8)]
      arguments.append(Array(String(indices.count).utf8))
      for index in indices { arguments.append(Array(order.keys[index].utf8)) }
      for index in indices { arguments.append(order.values[index]) }
      _ = call(arguments, failed: cannotEnd)
    }
  }
}
