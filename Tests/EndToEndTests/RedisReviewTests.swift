import Foundation
import TestSupport
import Testing

/// A hostile review of leases kept in Redis: keys planted in the store, account names that look
/// like the store's own keys, a server that answers too slowly. Each test failed before its fix.
@Suite struct RedisReviewTests {
  /// A fence counter holding text (planted, or written by another program under the prefix)
  /// made the acquire script fail half way: Redis runs a script atomically but does not undo
  /// what it did before an error, so the first account stayed held, by nobody, for a held
  /// lease's ttl. Nothing may be taken then, and the error names the key.
  @Test func aFenceKeyHoldingTextTakesNothing() throws {
    let world = try RedisMachines(count: 1, users: ["qa1", "qa2"])
    defer { world.close() }
    try world.redis.cli(["SET", "accounts:lease:corp:qa2:fence", "not a number"])
    let lease = try world.a.run(["lease", "qa1", "qa2", "--count", "2", "--", "true"])
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains("accounts:lease:corp:qa2:fence"), "\(lease.standardError)")
    #expect(try world.leaseKeys() == [], "nothing held")
    #expect(try world.redis.cli(["EXISTS", "accounts:lease:corp:qa1:fence"]) == "0\n", "qa1's fence untouched")
  }

  /// An account named `fence` is an account like any other: its key, `PREFIX:fence`, is no
  /// fence counter (those are `PREFIX:USER:fence`). `leases` did not show its lease and
  /// `release` could not end it.
  @Test func anAccountNamedFenceIsShownAndReleased() throws {
    let world = try RedisMachines(count: 1, users: ["fence"])
    defer { world.close() }
    let lease = try world.a.ok(["lease", "fence", "--ttl", "10m"]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(try world.a.leases().map { $0["account"] as? String } == ["fence@corp"])
    let released = try world.a.run(["release", lease])
    #expect(released.status == 0, "\(released)")
    #expect(try world.redis.cli(["EXISTS", "accounts:lease:corp:fence"]) == "0\n")
  }

  /// A lease key holding what accounts does not write is garbage from the store (exit 8, naming
  /// the key), not an account "being taken" at this moment: `lease` said that (exit 10), and
  /// with --wait waited all of it for a key that never goes away.
  @Test func aGarbageLeaseKeyIsExit8NamingTheKey() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
    defer { world.close() }
    try world.redis.cli(["SET", "accounts:lease:corp:qa1", "garbage"])
    let lease = try world.a.run(["lease", "qa1", "--wait", "30s", "--", "true"])
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains("(accounts:lease:corp:qa1) holds what accounts does not write"), "\(lease)")
  }
}
