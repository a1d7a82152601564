import Foundation
import Glibc

@testable import AccountsSystem

/// A session bus in the test's own process, for what a real bus never does on request: it
/// accepts one client on an abstract unix socket, answers its login, and answers each call it
/// reads (decoded by `DBusMessage`) with the replies `answer` returns, senders included, given
/// the number of the read that completed the call (calls of one write share it: the client
/// writes each batch whole, then waits for the replies). Every read and write is bounded, so a
/// client that stops talking ends it instead of hanging the test.
final class FakeSessionBus: @unchecked Sendable {
  /// The address to give the client (DBUS_SESSION_BUS_ADDRESS).
  let address: String
  private let listener: Int32
  private let answer: @Sendable (DBusMessage, _ read: Int) -> [DBusMessage]
  private let finished = DispatchSemaphore(value: 0)
  private nonisolated(unsafe) static var count = 0

  convenience init(answer: @escaping @Sendable (DBusMessage) -> [DBusMessage]) throws {
    try self.init { call, _ in answer(call) }
  }

  init(answerRead answer: @escaping @Sendable (DBusMessage, _ read: Int) -> [DBusMessage]) throws {
    Self.count += 1
    let name = "accounts-fake-bus-\(getpid())-\(Self.count)-\(UInt32.random(in: 0...UInt32.max))"
    address = "unix:abstract=\(name)"
    self.answer = answer
    listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var socketAddress = sockaddr_un()
    socketAddress.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
      for (index, byte) in name.utf8.enumerated() { raw[1 + index] = byte }
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + name.utf8.count)
    let bound = withUnsafePointer(to: &socketAddress) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 }
    }
    guard listener >= 0, bound, listen(listener, 1) == 0 else { throw Failure.cannotListen(errno) }
    Thread { [self] in
      serve()
      finished.signal()
    }.start()
  }

  enum Failure: Error { case cannotListen(Int32) }

  /// Waits for the client to leave (or for the bus's own bound), then closes the socket.
  func close() {
    _ = finished.wait(timeout: .now() + 10)
    Glibc.close(listener)
  }

  private func serve() {
    var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    guard poll(&ready, 1, 5000) == 1 else { return }
    let client = accept(listener, nil, nil)
    guard client >= 0 else { return }
    defer { Glibc.close(client) }
    var bound = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
    var pending: [UInt8] = []
    var reads = 0
    func fill() -> Bool {
      reads += 1
      var chunk = [UInt8](repeating: 0, count: 4096)
      let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return false }
      pending += chunk[0..<count]
      return true
    }
    // The login: a NUL, AUTH EXTERNAL, BEGIN; the bus says OK in between.
    let begin = Array("BEGIN\r\n".utf8)
    while pending.firstRange(of: begin) == nil { guard fill() else { return } }
    pending.removeSubrange(..<pending.firstRange(of: begin)!.upperBound)
    guard send(client, Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8)) else { return }
    var serial: UInt32 = 1000
    while true {
      while pending.count < 16 { guard fill() else { return } }
      guard let length = DBusMessage.length(ofHeader: pending[..<16]) else { return }
      while pending.count < length { guard fill() else { return } }
      guard let call = DBusMessage(decoding: Array(pending[..<length])) else { return }
      pending.removeFirst(length)
      for var reply in answer(call, reads) {
        serial += 1
        reply.serial = serial
        guard send(client, reply.encoded()) else { return }
      }
    }
  }

  private func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
  }

  /// A method return to `call` from `sender`.
  static func reply(to call: DBusMessage, from sender: String, _ body: [DBusMessage.Value]) -> DBusMessage {
    DBusMessage(kind: .methodReturn, serial: 1, replySerial: call.serial, destination: ":1.1", sender: sender, body: body)
  }
}
