@testable import AccountsCore
@testable import AccountsServices
import AccountsSystem
import Foundation
import Glibc
import Testing

/// One Redis connection against a server that takes the connection and never answers (a
/// listening socket on 127.0.0.1 nobody accepts from: the kernel completes the handshake).
@Suite struct RedisConnectionTests {
  /// A listener on a free port of 127.0.0.1, closed by `close`.
  struct SilentServer {
    let socket: Int32
    let port: Int

    init() throws {
      let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
      self.socket = socket
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let listening = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
          bind(socket, generic, length) == 0 && listen(socket, 4) == 0 && getsockname(socket, generic, &length) == 0
        }
      }
      guard socket >= 0, listening else { throw Errno.current }
      port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(socket) }
  }

  /// A reply late by the command's own timeout (no deadline set) is the same case as one late
  /// by the deadline: "did not answer ... within", naming ACCOUNTS_NETWORK_TIMEOUT, never "lost
  /// the connection", which sends the user looking for a crashed server.
  @Test(arguments: [nil, 5.0])
  func aReplyThatNeverComesIsLateNotALostConnection(deadlineSeconds: Double?) throws {
    let server = try SilentServer()
    defer { server.close() }
    let address = RedisAddress(endpoint: .tcp(host: "127.0.0.1", port: server.port))
    let deadline = deadlineSeconds.map { monotonicNanoseconds() + UInt64($0 * 1e9) }
    let connection = try RedisConnection(address, password: nil, timeoutMilliseconds: 300, deadline: deadline)
    #expect(throws: LeaseStoreUnavailable(
      address: address.description,
      detail: "it did not answer everything asked within 0.3 s (ACCOUNTS_NETWORK_TIMEOUT)",
      fix: "check that Redis runs there and is not overloaded, or give ACCOUNTS_NETWORK_TIMEOUT more seconds")
    ) {
      try connection.call(["PING"])
    }
  }
}
