import Foundation
import TestSupport
import Testing

/// The lease keeper, which keeps a lease in Redis while its command runs and ends it after:
/// it renews in time even when late to start, gives up within the ttl on a Redis that hangs,
/// connects again when Redis closed its idle connection, holds no descriptor but its own, and
/// says when it could not end a lease. A `lease` killed while it logs in, or whose keeper cannot
/// start, leaves nothing held and runs nothing.
@Suite(.blocking) struct RedisKeeperTests {
  /// `lease` killed while it logs in (the backend slow to answer) leaves nothing held: its
  /// keeper sees the lease's pipe end and deletes the key.
  @Test func aLeaseKilledWhileLoggingInLeavesNothingHeld() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    try world.backend.delay(seconds: 10)
    let taking = try Holder(world.a, ["lease", "qa1", "--ttl", "10m"])
    #expect(waitUntil(seconds: 30) { ((try? world.backend.concurrency().current) ?? 0) > 0 }, "logging in")
    #expect(try world.leaseKeys() == ["accounts:lease:corp:qa1"])
    taking.kill()
    try world.backend.delay(seconds: 0)
    #expect(world.leaseKeysGone(), "deleted long before the 30 s a held key lives")
    try world.a.ok(["lease", "qa1", "--", "true"])
  }

  /// A keeper late to start (here stopped as it starts, until its lease's key has less than a
  /// third of the ttl left) renews at once: a third of the ttl is counted from when the key was
  /// set, not from the keeper's start, or the key would expire under the command.
  @Test func aKeeperLateToStartStillRenewsInTime() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let root = world.a.keyring.root
    let key = "accounts:lease:corp:qa1"
    let script = "touch \"$0\"; while [ ! -e \"$1\" ]; do sleep 0.05; done"
    let holder = try Holder(
      world.a, ["lease", "qa1", "--ttl", "3s", "--", "/bin/sh", "-c", script, root + "/ready", root + "/go"],
      environment: ["LD_PRELOAD": Interposer.stoppingLeaseKeepers])
    #expect(waitUntil(seconds: 30) { holder.stoppedKeeper() != nil }, "the keeper stopped as it started")
    let starting = try #require(holder.stoppedKeeper())
    #expect(waitUntil(seconds: 10) { (0..<1000).contains(world.millisecondsLeft(key)) })
    kill(starting, SIGCONT)
    #expect(waitUntil(seconds: 10) { !(0...2000).contains(world.millisecondsLeft(key)) })
    #expect(world.millisecondsLeft(key) > 2000, "renewed, not expired: \(holder.standardError)")
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: root + "/ready") })
    _ = FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish() == 0)
    #expect(!holder.standardError.contains("lost the lease"), "\(holder.standardError)")
    #expect(world.leaseKeysGone())
  }

  /// A keeper that cannot start (its fork fails) stops the lease before its command runs, which
  /// would otherwise run with nobody renewing its lease, and lose it one ttl later.
  @Test func aLeaseWhoseKeeperCannotStartDoesNotRunItsCommand() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let marker = world.a.keyring.root + "/ran"
    let lease = try world.a.run(
      ["lease", "qa1", "--ttl", "1s", "--", "/bin/sh", "-c", "touch \"$0\"", marker],
      environment: ["LD_PRELOAD": Interposer.failingLeaseKeeperForks])
    #expect(lease.status == 1 && lease.standardError.contains("cannot start the lease keeper"), "\(lease)")
    #expect(!FileManager.default.fileExists(atPath: marker), "the command did not run")
    #expect(waitUntil(seconds: 10) { (try? world.leaseKeys()) == [] }, "its key expired")
  }

  /// A lease taken inside another's command inherits the outer lease's pipe; its keeper must not
  /// hold it (nor anything else the inner `accounts` had open), or it would keep the outer
  /// lease alive for as long as the inner one. A keeper holds its own pipe and its connection
  /// to Redis, nothing more.
  @Test func aKeeperHoldsNoDescriptorItWasHandedByAccident() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1", "qa2"])
    defer { world.close() }
    let root = world.a.keyring.root
    let inner = "touch \"$1\"; i=0; while [ ! -e \"$2\" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done"
    let holder = try Holder(
      world.a,
      ["lease", "qa1", "--", "/bin/sh", "-c", "exec \"$0\" lease qa2 -- /bin/sh -c \"$1\" inner \"$2\" \"$3\"",
       PackagePaths.accounts, inner, root + "/ready", root + "/go"])
    defer {
      FileManager.default.createFile(atPath: root + "/go", contents: nil)
      _ = try? holder.finish()
    }
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: root + "/ready") }, Comment(rawValue: holder.standardError))
    let files = FileManager.default
    var keepers: [pid_t: [String]] = [:]
    // This test's keepers only: other tests (and other checkouts) may run keepers meanwhile.
    let home = "XDG_CONFIG_HOME=" + (world.a.environment["XDG_CONFIG_HOME"] ?? "")
    for entry in try files.contentsOfDirectory(atPath: "/proc") {
      guard let pid = pid_t(entry), procFile("/proc/\(entry)/cmdline") == "accounts\0__lease-keeper\0",
        procFile("/proc/\(entry)/environ").split(separator: "\0").contains(Substring(home))
      else { continue }
      let fds = (try? files.contentsOfDirectory(atPath: "/proc/\(entry)/fd")) ?? []
      keepers[pid] = fds.compactMap { fd in
        guard let number = Int(fd), number > 2 else { return nil }
        return try? files.destinationOfSymbolicLink(atPath: "/proc/\(entry)/fd/\(fd)")
      }
    }
    #expect(keepers.count == 2, "\(keepers)")
    for (pid, held) in keepers {
      #expect(held.allSatisfy { $0.hasPrefix("socket:") }, "keeper \(pid) holds \(held)")
    }
  }

  /// Redis gone when the command ends (and never needed before: no renewal was due): the
  /// keeper says it could not end the lease and that it ends by itself, not that it could not
  /// renew it.
  @Test func aLeaseThatCannotBeEndedSaysSo() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let root = world.a.keyring.root
    let holder = try world.a.holding(["qa1", "--ttl", "60s"], ready: root + "/ready", release: root + "/go", status: 3)
    world.redis.stop()
    FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish() == 3)
    #expect(waitUntil(seconds: 20) { holder.standardError.contains("could not end lease") }, Comment(rawValue: holder.standardError))
    #expect(holder.standardError.contains("it ends by itself within 60 s"), Comment(rawValue: holder.standardError))
    #expect(!holder.standardError.contains("cannot renew"), Comment(rawValue: holder.standardError))
  }

  /// A Redis that stops answering while a keeper renews (here stopped with SIGSTOP) is given
  /// up on within a third of the ttl, and said, not after ACCOUNTS_NETWORK_TIMEOUT (20 s), by
  /// which time the lease would long have run out unsaid.
  @Test func aRedisThatHangsIsGivenUpOnWithinTheTTL() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let (holder, release) = try world.renewedLease(ttl: "900ms")
    defer { release() }
    kill(world.redis.pid, SIGSTOP)
    defer { kill(world.redis.pid, SIGCONT) }
    #expect(
      waitUntil(seconds: 5) { holder.standardError.contains("cannot renew lease") }, Comment(rawValue: holder.standardError))
  }

  /// A Redis that closes idle connections (its `timeout`, or a NAT dropping idle flows) while
  /// the keeper waits a third of the ttl: the keeper connects again and renews, with nothing to
  /// say (not that it could not renew the lease, whose accounts "may be taken over").
  @Test func aKeeperWhoseIdleConnectionWasClosedRenewsWithoutAWord() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    try world.redis.cli(["CONFIG", "SET", "timeout", "1"])
    let root = world.a.keyring.root
    let holder = try world.a.holding(["qa1", "--ttl", "9s"], ready: root + "/ready", release: root + "/go")
    // The acquire, then three renewals, each after the connection sat idle 3 s.
    #expect(waitUntil(seconds: 30) { (try? Self.evalCalls(world.redis)) ?? 0 >= 4 }, "renewed")
    FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish() == 0)
    #expect(world.leaseKeysGone())
    #expect(!holder.standardError.contains("cannot renew"), Comment(rawValue: holder.standardError))
  }

  /// The same at the end: the keeper deletes the keys on a new connection, at once, rather than
  /// saying it could not end the lease and holding its account for up to a ttl more.
  @Test func aKeeperWhoseIdleConnectionWasClosedEndsTheLeaseAtOnce() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    try world.redis.cli(["CONFIG", "SET", "timeout", "1"])
    let root = world.a.keyring.root
    let holder = try world.a.holding(["qa1", "--ttl", "30s"], ready: root + "/ready", release: root + "/go")
    #expect(waitUntil(seconds: 30) { (try? Self.evalCalls(world.redis)) ?? 0 >= 2 }, "renewed once")
    #expect(waitUntil(seconds: 20) { (try? world.redis.cli(["CLIENT", "LIST"]))?.split(separator: "\n").count == 1 })
    FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish() == 0)
    #expect(world.leaseKeysGone(), "deleted, not left to expire: \(holder.standardError)")
    #expect(!holder.standardError.contains("could not end"), Comment(rawValue: holder.standardError))
  }

  /// `lease --ttl` takes the lease, logs in (here slowly), then detaches it: a Redis that closed
  /// the idle connection meanwhile (its `timeout`) is connected to again.
  @Test func aDetachedLeaseOutlivesAConnectionClosedWhileLoggingIn() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    try world.redis.cli(["CONFIG", "SET", "timeout", "1"])
    try world.backend.delay(seconds: 3)
    let lease = try world.a.run(["lease", "qa1", "--ttl", "10m"])
    #expect(lease.status == 0, "\(lease)")
    #expect(try world.a.leases().first?["expires_at"] is String)
  }

  /// How many EVALs the server ran.
  static func evalCalls(_ redis: RedisServer) throws -> Int {
    let stats = try redis.cli(["INFO", "commandstats"])
    guard let line = stats.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_eval:") }),
      let calls = line.split(separator: ",").first?.split(separator: "=").last
    else { return 0 }
    return Int(calls) ?? 0
  }
}
