@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Foundation
import SecretMemory
import Testing

/// Lease store addresses as users write them in ACCOUNTS_LEASE_STORE and a backend's
/// lease_store: what parses and reads back, and what is refused, saying why and never showing a
/// password written in it.
@Suite struct LeaseStoreAddressTests {
  private func redis(_ text: String) throws -> RedisAddress {
    guard case .redis(let address) = try LeaseStoreAddress.parse(text) else {
      Issue.record("\(text) is not a Redis address")
      throw CommandError.usage("not Redis")
    }
    return address
  }

  /// The usage error of `text`.
  private func refusal(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> CommandError? {
    do {
      let address = try LeaseStoreAddress.parse(text)
      Issue.record("'\(text)' was taken as \(address)", sourceLocation: sourceLocation)
      return nil
    } catch {
      #expect(error.status == .usage, sourceLocation: sourceLocation)
      #expect(LeaseStoreAddress.problem(text) != nil, "problem agrees with parse", sourceLocation: sourceLocation)
      return error
    }
  }

  @Test func goodAddressesParseAndTheirDescriptionParsesBack() throws {
    let cases: [(String, RedisAddress.Endpoint, Int, String?)] = [
      ("redis://127.0.0.1", .tcp(host: "127.0.0.1", port: 6379), 0, nil),
      ("redis://ci-redis:6380/2", .tcp(host: "ci-redis", port: 6380), 2, nil),
      ("REDIS://Ci-Redis.example:1/", .tcp(host: "Ci-Redis.example", port: 1), 0, nil),
      ("redis://runner_7@ci-redis:65535/15", .tcp(host: "ci-redis", port: 65535), 15, "runner_7"),
      ("redis://[::1]:6390/3", .tcp(host: "::1", port: 6390), 3, nil),
      ("redis://ci@[fe80::1]", .tcp(host: "fe80::1", port: 6379), 0, "ci"),
      ("unix:///run/redis/redis.sock", .unixSocket(path: "/run/redis/redis.sock"), 0, nil),
      ("unix:///tmp/r.sock?db=4", .unixSocket(path: "/tmp/r.sock"), 4, nil),
    ]
    for (text, endpoint, database, user) in cases {
      let address = try redis(text)
      #expect(address == RedisAddress(endpoint: endpoint, database: database, user: user), "\(text)")
      #expect(try LeaseStoreAddress.parse(address.description) == .redis(address), "\(text) -> \(address)")
      #expect(LeaseStoreAddress.problem(text) == nil, "\(text)")
    }
    #expect(try redis("redis://[::1]:6390/3").description == "redis://[::1]:6390/3")
    #expect(try redis("unix:///tmp/r.sock?db=0").description == "unix:///tmp/r.sock")
    #expect(try LeaseStoreAddress.parse("local") == .local)
  }

  @Test func badAddressesAreUsageErrorsSayingWhatIsWrong() {
    let cases: [(String, String)] = [
      ("redis://host:0", "invalid port"),
      ("redis://host:65536", "invalid port"),
      ("redis://host:63a9", "invalid port"),
      ("redis://host:", "invalid port"),
      ("redis://host:-1", "invalid port"),
      ("redis://[::1", "unterminated [IPv6]"),
      ("redis://[::1]6379", "text after its [IPv6]"),
      ("redis://[zz::1]", "invalid IPv6"),
      ("redis://[]:6379", "invalid IPv6"),
      ("redis://::1", "no host"),
      ("redis://", "no host"),
      ("redis://:6379", "no host"),
      ("redis://@host", "user name"),
      ("redis://us%er@host", "user name"),
      ("redis://host/two", "database other than a number"),
      ("redis://host/1/2", "database other than a number"),
      ("redis://host?db=2", "only /DB"),
      ("unix://run/redis.sock", "absolute path"),
      ("unix://", "absolute path"),
      ("unix:///", "absolute path"),
      ("unix:///" + String(repeating: "s", count: 120), "shorter than 108 bytes"),
      ("unix:///r.sock?db=x", "?db=N"),
      ("unix:///r.sock?db=-1", "?db=N"),
      ("unix:///r.sock?timeout=1", "?db=N"),
      ("redis://ci redis:6379", "printable ASCII without spaces"),
      ("redis://ci-redis:6379\n", "printable ASCII without spaces"),
      ("redis://ci-redis\u{1b}[2J:6379", "printable ASCII without spaces"),
      ("redis://ci-rédis", "printable ASCII without spaces"),
      ("redis://" + String(repeating: "a", count: 1020), "at most 1024 characters"),
      ("http://ci-redis:6379", "is not redis://"),
      ("ci-redis:6379", "is not redis://"),
      ("", "is not redis://"),
    ]
    for (text, problem) in cases {
      guard let error = refusal(text) else { continue }
      #expect(error.message.contains(problem), "\(text.debugDescription): \(error.message)")
      #expect(error.fix?.isEmpty == false, "\(text.debugDescription) has a fix")
      #expect(!error.message.contains("\n") && !error.message.contains("\u{1b}"), "one printable line: \(error.message)")
      #expect(error.message.count < 200, "\(error.message)")
    }
  }

  @Test func tlsIsRefusedWithTheTunnelFix() {
    let error = refusal("rediss://ci-redis:6380/2")
    #expect(error?.message.contains("TLS") == true, "\(String(describing: error))")
    #expect(error?.fix?.contains("TLS tunnel") == true && error?.fix?.contains("redis://127.0.0.1:PORT") == true)
  }

  @Test func aPasswordInTheAddressIsRefusedWithTheKeyringFix() {
    for text in ["redis://:hunter2@ci-redis", "redis://ci:hunter2@ci-redis:6379/2", "REDIS://ci:hunter2@[::1]"] {
      let error = refusal(text)
      #expect(error?.message.contains("password") == true, "\(text): \(String(describing: error))")
      #expect(error?.fix?.contains("--secret-stdin lease_store_password") == true, "\(text): \(String(describing: error))")
    }
  }

  /// A password written in the address, however malformed the rest, never reaches the error
  /// (stderr, CI logs): neither the message nor the fix holds any of it.
  @Test func aRefusedAddressNeverShowsItsPassword() {
    let cases = [
      "redis://:hunter2@ci-redis", "redis://ci:hunter2@ci-redis:6379/2", "redis://ci:hun/ter2@ci-redis",
      "redis://ci:hun?ter2@ci-redis", "redis://ci:hun#ter2@ci-redis", "redis://ci:hun@ter2@ci-redis:0",
      "rediss://ci:hunter2@ci-redis", "unix://ci:hunter2@/run/redis.sock", "redis://ci:hunter2 @ci-redis",
      "redis://ci:hunter2@ci-redis/x", "http://ci:hunter2@ci-redis",
    ]
    for text in cases {
      guard let error = refusal(text) else { continue }
      let shown = error.message + " " + (error.fix ?? "")
      for fragment in ["hunter2", "hun", "ter2"] {
        #expect(!shown.contains(fragment), "\(text): \(shown)")
      }
    }
  }
}
