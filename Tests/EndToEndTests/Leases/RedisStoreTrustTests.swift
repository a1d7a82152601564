import Foundation
import TestSupport
import Testing

/// What a holder may trust of a Redis lease store: one pool is one store, whatever the
/// environment says; a fence only grows, even after Redis lost its keys; a Redis that may lose
/// them is said to; a lease whose keeper died is told apart from one kept alive; one key that
/// holds garbage hides no other lease.
@Suite(.blocking) struct RedisStoreTrustTests {
  /// ACCOUNTS_LEASE_STORE naming another store than the backend's lease_store (this machine's,
  /// or another database of the same Redis) is refused, naming both: a second holder took the
  /// account from the other store with no word. Naming the same store is fine. Reading every
  /// store (`leases`) still works, and so do the commands of a backend without a store of its
  /// own, which the environment's serves.
  @Test func anEnvironmentNamingAnotherStoreThanTheBackendsIsRefused() throws {
    let world = try Fixture(machines: 1).serving(users: ["qa1", "me"])
      .addingServedBackend("corp", settings: ["check_path=check"]).addingServedBackend("home")
      .runningRedis().leasingInRedis().saving("qa1@corp", password: Fixture.password(of: "qa1"), tags: ["qa"])
      .saving("me@home", password: Fixture.password(of: "me"))
    defer { world.close() }
    try world.a.ok(["lease", "qa1", "--ttl", "10m"])
    for store in ["local", world.redis.tcpURL(database: 2)] {
      let result = try world.a.run(["lease", "qa1", "--", "true"], environment: ["ACCOUNTS_LEASE_STORE": store])
      #expect(result.status == 2, "\(store): \(result)")
      #expect(result.standardError.contains("ACCOUNTS_LEASE_STORE names \(store)"), "\(result.standardError)")
      #expect(result.standardError.contains(world.redis.tcpURL()), "\(result.standardError)")
      let leases = try world.a.run(["leases"], environment: ["ACCOUNTS_LEASE_STORE": store])
      #expect(leases.status == 0 && leases.standardOutput.contains("qa1@corp"), "corp's own store is read: \(leases)")
      let home = try world.a.run(["lease", "me@home", "--ttl", "1m"], environment: ["ACCOUNTS_LEASE_STORE": store])
      #expect(home.status == 0, "home has no store of its own: the environment's serves it: \(home)")
      let released = try world.a.run(["release", home.standardOutput.trimmingCharacters(in: .newlines)],
        environment: ["ACCOUNTS_LEASE_STORE": store])
      #expect(released.status == 0, "\(released)")
    }
    let same = try world.a.run(["lease", "qa1", "--", "true"], environment: ["ACCOUNTS_LEASE_STORE": world.redis.tcpURL()])
    #expect(same.status == 10 && same.standardError.contains("qa1@corp held by"), "the one store: \(same)")
  }

  /// A Redis that lost its keys (FLUSHALL here; a restart without persistence alike) hands out
  /// no fence a stale holder may carry: the next one is above every earlier one, not 1 again.
  @Test func aFenceGrowsAfterRedisLostItsKeys() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let started = UInt64(Date().timeIntervalSince1970) * 1000
    let first = try #require(try world.a.json(["lease", "qa1", "--ttl", "10m", "--json"]) as? [String: Any])
    let firstFence = try #require(first["fence"] as? Int)
    #expect(UInt64(firstFence) >= started - 1000, "from the clock, not from 1: \(firstFence)")
    try world.redis.cli(["FLUSHALL"])
    let second = try #require(try world.a.json(["lease", "qa1", "--ttl", "10m", "--json"]) as? [String: Any])
    let secondFence = try #require(second["fence"] as? Int)
    #expect(secondFence > firstFence, "\(firstFence) then \(secondFence)")
  }

  /// A Redis that keeps its keys only in memory, or only in snapshots, or evicts keys when full,
  /// is warned about once per command (here a `lease` that tries again and again for 2 s), and
  /// the command goes on; a Redis that keeps them, or that refuses CONFIG (a managed Redis),
  /// gets no word.
  @Test func aRedisThatMayLoseLeaseKeysIsWarnedAboutOncePerCommand() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let warning = "accounts: warning: lease store \(world.redis.tcpURL())"
    #expect(!(try world.a.ok(["lease", "qa1", "--", "true"])).standardError.contains(warning))
    let held = try world.a.ok(["lease", "qa1", "--ttl", "10m"]).standardOutput.trimmingCharacters(in: .newlines)

    try world.redis.cli(["CONFIG", "SET", "appendonly", "no"])
    let memory = try world.a.run(["lease", "qa1", "--wait", "2s", "--", "true"])
    #expect(memory.status == 10, "\(memory)")
    #expect(memory.standardError.components(separatedBy: warning).count == 2, "once: \(memory.standardError)")
    #expect(memory.standardError.contains("keeps its keys only in memory"), "\(memory.standardError)")
    #expect(memory.standardError.contains("`appendonly yes`"), "\(memory.standardError)")

    try world.redis.cli(["CONFIG", "SET", "save", "900 1"])
    try world.redis.cli(["CONFIG", "SET", "maxmemory", "1gb"])
    try world.redis.cli(["CONFIG", "SET", "maxmemory-policy", "volatile-lru"])
    let leases = try world.a.run(["leases"])
    #expect(leases.status == 0 && leases.standardOutput.contains(held), "\(leases)")
    #expect(leases.standardError.contains("only in snapshots"), "\(leases.standardError)")
    #expect(leases.standardError.contains("may evict keys when full (maxmemory-policy volatile-lru)"), "\(leases.standardError)")

    try world.redis.cli(["ACL", "SETUSER", "default", "-config"])
    let refused = try world.a.run(["lease", "qa1", "--", "true"])
    #expect(refused.status == 10, "\(refused)")
    #expect(!refused.standardError.contains(warning), "\(refused.standardError)")
    try world.a.ok(["release", held])
    try world.a.ok(["lease", "qa1", "--", "true"])
  }

  /// A keeper killed with SIGKILL leaves its command running while the lease runs out: once
  /// the key has less than half its ttl left, `leases` says the keeper is overdue (table,
  /// --json and a warning), where it said "renewing" before.
  @Test func aLeaseWhoseKeeperDiedIsFlaggedByLeases() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let (holder, release) = try world.renewedLease(ttl: "10s")
    defer { release() }
    let keeper = try #require(holder.keeper())
    let before = try #require(try world.a.leases().first)
    #expect(before["keeper"] as? String == "renewing" && before["lapses_at"] is NSNull, "\(before)")

    kill(keeper, SIGKILL)
    let key = "accounts:lease:corp:qa1"
    #expect(waitUntil(seconds: 10) { (1..<4500).contains(world.millisecondsLeft(key)) })
    let leases = try world.a.run(["leases"])
    #expect(leases.status == 0 && leases.standardOutput.contains("(keeper overdue)"), "\(leases)")
    #expect(leases.standardError.contains("its keeper has not renewed it"), "\(leases.standardError)")
    let after = try #require(try world.a.leases().first)
    #expect(after["keeper"] as? String == "overdue" && after["lapses_at"] is String, "\(after)")
  }

  /// One key under the prefix that holds garbage (a string accounts did not write, a hash)
  /// is an unreadable row of `leases`, which shows the other leases and exits 0; `release`
  /// of another lease works. Both failed for the whole pool (exit 8).
  @Test func oneUnreadableKeyDoesNotTakeThePoolDown() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1", "qa2"])
    defer { world.close() }
    let id = try world.a.ok(["lease", "qa1", "--ttl", "10m"]).standardOutput.trimmingCharacters(in: .newlines)
    try world.redis.cli(["SET", "accounts:lease:corp:qa2", "garbage"])
    try world.redis.cli(["HSET", "accounts:lease:corp:qa3", "a", "b"])

    let leases = try world.a.run(["leases"])
    #expect(leases.status == 0, "\(leases)")
    #expect(leases.standardOutput.contains("qa1@corp") && leases.standardOutput.contains(id), "\(leases)")
    for key in ["accounts:lease:corp:qa2", "accounts:lease:corp:qa3"] {
      #expect(leases.standardOutput.contains(key) && leases.standardError.contains("(\(key)) holds"), "\(leases)")
    }
    let rows = try world.a.leases()
    #expect(rows.count == 3, "\(rows)")
    #expect(rows.filter { $0["unreadable"] is String }.compactMap { $0["key"] as? String }.sorted()
      == ["accounts:lease:corp:qa2", "accounts:lease:corp:qa3"], "\(rows)")

    let released = try world.a.run(["release", id])
    #expect(released.status == 0 && released.standardError.contains("released qa1@corp"), "\(released)")
  }
}
