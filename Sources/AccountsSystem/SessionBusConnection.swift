import Glibc

/// A connection to the D-Bus session bus over its unix socket, without libdbus or GLib: SASL
/// `AUTH EXTERNAL` and Hello with the first calls, then whole messages written and read under
/// one deadline. The connection numbers every call it sends (its serial) and matches each reply
/// to its call, so callers hand it calls and get replies back in the same order. Every failure
/// (no address, a refused login, a slow or silent bus, a malformed message) is nil, for callers
/// that fall back to another path.
public final class SessionBusConnection {
  private let descriptor: Int32
  private var deadline: Double
  private var pending: [UInt8] = []
  /// The serial of the next call: 1 is Hello's, which goes first.
  private var nextSerial: UInt32 = 1
  /// Whether the login and Hello went out (with the first calls).
  private var begun = false
  /// Whether a wait ended at the deadline (the bus or the peer asked did not answer in time),
  /// rather than on an error or an unexpected message.
  public private(set) var timedOut = false

  /// Connects to the first `unix:path=` or `unix:abstract=` address of `address` (the value
  /// of DBUS_SESSION_BUS_ADDRESS); nil when that fails. Everything after it must happen within
  /// `timeout` seconds.
  public init?(address: String, timeout: Double) {
    deadline = monotonicSeconds() + timeout
    let candidates = address.split(separator: ";").compactMap(SocketAddress.init)
    guard let target = candidates.first else { return nil }
    descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    // From here on, a failed init still runs deinit, which closes the socket.
    guard target.connect(descriptor) else { return nil }
  }

  deinit { close(descriptor) }

  /// Everything from now on must happen within `timeout` seconds: a connection kept for later
  /// questions gives each its own wait, not what is left of the first one's.
  public func restartDeadline(timeout: Double) {
    deadline = monotonicSeconds() + timeout
    timedOut = false
  }

  /// Sends `calls` in one write and returns their replies (method returns or errors) in the
  /// same order, signals skipped: one round trip however many calls. The first calls of a
  /// connection go in the same write as the authentication (SASL `AUTH EXTERNAL` as this user,
  /// `BEGIN`) and Hello, as sd-bus sends them, one round trip fewer than waiting for the bus's
  /// `OK`. Nil unless the bus answers `OK` and every call's reply arrives before the deadline.
  public func call(_ calls: [DBusCall]) -> [DBusMessage]? {
    var login: [UInt8] = []
    var sent = calls
    if !begun {
      let uid = Array(String(getuid()).utf8).map { byte in String(byte, radix: 16) }.joined()
      login = [0] + Array("AUTH EXTERNAL \(uid)\r\nBEGIN\r\n".utf8)
      sent.insert(DBusObject.bus.call("Hello"), at: 0)
      begun = true
    }
    let messages = sent.map { call in
      defer { nextSerial += 1 }
      return call.message(serial: nextSerial)
    }
    guard write(login + messages.flatMap { $0.encoded() }) else { return nil }
    if !login.isEmpty {
      guard let answer = readLine(), answer.hasPrefix("OK ") else { return nil }
    }
    guard let replies = replies(to: Set(messages.map(\.serial))) else { return nil }
    return messages.suffix(calls.count).map { replies[$0.serial]! }
  }

  /// The replies (returns or errors) to the calls `serials`, by serial, skipping signals; nil
  /// when the deadline passes first, or a message cannot be read.
  private func replies(to serials: Set<UInt32>) -> [UInt32: DBusMessage]? {
    var replies: [UInt32: DBusMessage] = [:]
    for _ in 0..<64 {  // the bus sends a signal or two unasked (NameAcquired); not dozens
      guard replies.count < serials.count else { return replies }
      guard let message = readMessage() else { return nil }
      if let serial = message.replySerial, serials.contains(serial), message.kind != .methodCall, message.kind != .signal {
        replies[serial] = message
      }
    }
    return replies.count == serials.count ? replies : nil
  }

  // MARK: - Bytes under the deadline

  private func wait(for events: Int16) -> Bool {
    let remaining = deadline - monotonicSeconds()
    guard remaining > 0 else {
      timedOut = true
      return false
    }
    var entry = pollfd(fd: descriptor, events: events, revents: 0)
    let ready = poll(&entry, 1, Int32(min(remaining * 1000 + 1, 60_000)))
    if ready == 0 { timedOut = true }
    return ready == 1 && entry.revents & events != 0
  }

  private func write(_ bytes: [UInt8]) -> Bool {
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { raw in
        Glibc.send(descriptor, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL))
      }
      if count > 0 {
        written += count
      } else if count < 0, errno == EINTR || errno == EAGAIN {
        guard wait(for: Int16(POLLOUT)) else { return false }
      } else {
        return false
      }
    }
    return true
  }

  /// More bytes from the socket into `pending`; false at the end, on error, or past the deadline.
  private func fill() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      // Checked before every read, not only when one would block: a peer that never stops
      // sending (a flood of signals) must not keep the connection past its deadline.
      guard monotonicSeconds() < deadline else {
        timedOut = true
        return false
      }
      let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
      if count > 0 {
        pending += chunk[0..<count]
        return true
      }
      guard count < 0, errno == EINTR || errno == EAGAIN, wait(for: Int16(POLLIN)) else { return false }
    }
  }

  /// One line of the authentication exchange, without its CR LF.
  private func readLine() -> String? {
    while true {
      if let end = pending.indices.dropLast().first(where: { pending[$0] == 13 && pending[$0 + 1] == 10 }) {
        defer { pending.removeFirst(end + 2) }
        return String(validating: pending[..<end], as: UTF8.self)
      }
      guard pending.count < 1024, fill() else { return nil }
    }
  }

  private func readMessage() -> DBusMessage? {
    while pending.count < 16 { guard fill() else { return nil } }
    guard let length = DBusMessage.length(ofHeader: pending[..<16]) else { return nil }
    while pending.count < length { guard fill() else { return nil } }
    let bytes = Array(pending[..<length])
    pending.removeFirst(length)
    return DBusMessage(decoding: bytes)
  }
}

/// One `unix:` address of a D-Bus address list.
struct SocketAddress: Equatable {
  /// The socket's path, or its name in the abstract namespace.
  var path: [UInt8]
  var abstract: Bool

  init(path: [UInt8], abstract: Bool) {
    self.path = path
    self.abstract = abstract
  }

  /// Parses `unix:path=...` or `unix:abstract=...` (other keys such as `guid` ignored, values
  /// %-unescaped); nil for other transports or malformed entries.
  init?(_ entry: Substring) {
    guard entry.hasPrefix("unix:") else { return nil }
    var found: (path: [UInt8], abstract: Bool)?
    for pair in entry.dropFirst(5).split(separator: ",") {
      guard let equals = pair.firstIndex(of: "="), let value = Self.unescape(pair[pair.index(after: equals)...]) else { return nil }
      switch pair[..<equals] {
      case "path": found = (value, false)
      case "abstract": found = (value, true)
      default: continue
      }
    }
    guard let found, !found.path.isEmpty, found.path.count < 108, !found.path.contains(0) else { return nil }
    (path, abstract) = found
  }

  static func unescape(_ text: Substring) -> [UInt8]? {
    var bytes: [UInt8] = []
    var utf8 = text.utf8.makeIterator()
    while let byte = utf8.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = utf8.next(), let low = utf8.next(),
        let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
      else { return nil }
      bytes.append(value)
    }
    return bytes
  }

  /// Connects `descriptor` (non-blocking; a unix socket connects at once or not at all).
  func connect(_ descriptor: Int32) -> Bool {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let offset = abstract ? 1 : 0
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.enumerated() { raw[offset + index] = byte }
    }
    let length = MemoryLayout<sa_family_t>.size + offset + path.count + (abstract ? 0 : 1)
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(length)) == 0 }
    }
  }
}
