@testable import AccountsContract
@testable import AccountsCore
@testable import AccountsServices
import AccountsSystem
import Foundation
import SecretMemory
import Testing

/// The lease keeper's order, the one line its command writes on its standard input: every
/// password byte survives it (in hex), and a malformed one is refused.
@Suite struct LeaseKeeperTests {
  private func order(password: [UInt8]?) -> LeaseKeeper.Order {
    var secret: SecretBytes?
    if var bytes = password { secret = SecretBytes(consuming: &bytes) }
    return LeaseKeeper.Order(
      address: RedisAddress(endpoint: .tcp(host: "::1", port: 6390), database: 3, user: "ci"),
      password: secret, ttlMilliseconds: 30_000, setAtNanoseconds: 123_456_789,
      timeoutMilliseconds: 5_000, lease: "l-0123abcd", keys: ["accounts:lease:corp:qa1", "accounts:lease:corp:qa2"],
      values: [Array("l-0123abcd:host:42".utf8), Array("l-0123abcd:host:42".utf8)])
  }

  @Test func theKeepersOrderRoundTripsWithAnyPasswordBytes() throws {
    let passwords: [[UInt8]?] = [
      nil, [], Array("hunter2".utf8), [0x00, 0xff, 0x0a, 0x0d, 0x22, 0x5c, 0x7b], Array(0...255),
    ]
    for password in passwords {
      let original = order(password: password)
      let line = original.encoded()
      #expect(line.last == 0x0a && line.filter { $0 == 0x0a }.count == 1, "one line: \(password ?? [])")
      #expect(!line.dropLast().contains(0) && !line.contains(0xff), "printable: \(password ?? [])")
      let decoded = try #require(LeaseKeeper.Order.decode(Array(line.dropLast())), "\(password ?? [])")
      #expect(decoded == original, "\(password ?? [])")
      #expect(decoded.password?.withUnsafeBytes { Array($0) } == password)
    }
    let clear = order(password: Array("hunter2".utf8)).encoded()
    #expect(!String(decoding: clear, as: UTF8.self).contains("hunter2"), "the password travels in hex")
  }

  @Test func aMalformedOrderIsRefused() {
    let good = String(decoding: order(password: Array("pw".utf8)).encoded().dropLast(), as: UTF8.self)
    let bad = [
      "", "{}", "not json", good.replacingOccurrences(of: "\"7077\"", with: "\"70zz\""),
      good.replacingOccurrences(of: "\"7077\"", with: "\"707\""),
      good.replacingOccurrences(of: "redis://ci@[::1]:6390/3", with: "rediss://ci@[::1]:6390/3"),
      good.replacingOccurrences(of: "redis://ci@[::1]:6390/3", with: "local"),
      good.replacingOccurrences(of: "30000", with: "0"),
    ]
    #expect(good.contains("\"7077\"") && good.contains("redis://ci@[::1]:6390/3") && good.contains("30000"), "\(good)")
    for text in bad {
      #expect(LeaseKeeper.Order.decode(Array(text.utf8)) == nil, "\(text)")
    }
  }
}
