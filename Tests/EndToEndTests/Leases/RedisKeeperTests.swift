import Foundation
import TestSupport
import Testing

/// Leases kept in Redis where things go wrong around them: a lease killed while it logs in, a
/// keeper late to start or unable to, an account of the pool that cannot log in, a detached
/// lease's expiry. Each of these once broke the rule that no two live leases hold one account.
@Suite(.blocking) struct RedisLeaseEdgeTests {
  /// `lease` killed while it logs in (the backend slow to answer) leaves nothing held: its
  /// keeper sees the lease's pipe end and deletes the key.
  @Test func aLeaseKilledWhileLoggingInLeavesNothingHeld() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
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
  /// set. It used to be counted from the keeper's start, and the key expired under the command.
  @Test func aKeeperLateToStartStillRenewsInTime() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
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

  /// A keeper that cannot start (its fork fails) stops the lease before its command runs: the
  /// command used to run with nobody renewing its lease, which ended under it one ttl later.
  @Test func aLeaseWhoseKeeperCannotStartDoesNotRunItsCommand() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
    defer { world.close() }
    let marker = world.a.keyring.root + "/ran"
    let lease = try world.a.run(
      ["lease", "qa1", "--ttl", "1s", "--", "/bin/sh", "-c", "touch \"$0\"", marker],
      environment: ["LD_PRELOAD": Interposer.failingLeaseKeeperForks])
    #expect(lease.status == 1 && lease.standardError.contains("cannot start the lease keeper"), "\(lease)")
    #expect(!FileManager.default.fileExists(atPath: marker), "the command did not run")
    #expect(waitUntil(seconds: 10) { (try? world.leaseKeys()) == [] }, "its key expired")
  }

  /// An account that cannot log in is skipped and the others are taken at once, also those
  /// leased with it: `lease` used to find them still held by the lease it had just given up
  /// (its keeper deletes the keys a moment later) and, the logins having taken longer than the
  /// moment's contention it waits out, exit 10 naming itself as their holder.
  @Test func anAccountThatCannotLogInIsSkippedAndItsPartnersTakenAgain() throws {
    let world = try RedisMachines(count: 1, users: ["qa1", "qa2", "qa3"])
    defer { world.close() }
    try world.a.ok(["passwd", "qa2", "--password-stdin"], stdin: "not-pw-qa2\n")
    try world.backend.delay(seconds: 0.2)
    let lease = try world.a.run(
      ["lease", "qa1", "qa2", "qa3", "--count", "2", "--", "/bin/sh", "-c", "echo $ACCOUNTS_LEASED"])
    #expect(lease.status == 0, "\(lease)")
    #expect(lease.standardOutput == "qa1@corp qa3@corp\n")
    #expect(lease.standardError.contains("skipped qa2@corp"), "\(lease.standardError)")
  }

  /// The expiry a detached lease shows is in whole seconds, rounded up; its key must live at
  /// least that long, or a runner counting on it would hold the account after another took it.
  /// With a ttl of a fraction of a second the key used to expire up to a second before.
  @Test func aDetachedLeaseKeyLivesUntilTheExpiryShown() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
    defer { world.close() }
    let taken = try #require(try world.a.json(["lease", "qa1", "--ttl", "10s10ms", "--json"]) as? [String: Any])
    let expiry = try #require(ISO8601DateFormatter().date(from: taken["expires_at"] as? String ?? ""))
    let expireTime = try world.redis.cli(["PEXPIRETIME", "accounts:lease:corp:qa1"])
    let milliseconds = try #require(Int64(expireTime.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(milliseconds >= Int64(expiry.timeIntervalSince1970 * 1000), "key expires \(milliseconds), shown \(expiry)")
  }

  /// A lease taken inside another's command inherits the outer lease's pipe; its keeper must not
  /// hold it (nor anything else the inner `accounts` had open), or it would keep the outer
  /// lease alive for as long as the inner one. A keeper holds its own pipe and its connection
  /// to Redis, nothing more.
  @Test func aKeeperHoldsNoDescriptorItWasHandedByAccident() throws {
    let world = try RedisMachines(count: 1, users: ["qa1", "qa2"])
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
    let world = try RedisMachines(count: 1, users: ["qa1"])
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
    let world = try RedisMachines(count: 1, users: ["qa1"])
    defer { world.close() }
    let root = world.a.keyring.root
    let holder = try world.a.holding(["qa1", "--ttl", "900ms"], ready: root + "/ready", release: root + "/go")
    defer {
      FileManager.default.createFile(atPath: root + "/go", contents: nil)
      _ = try? holder.finish()
    }
    // The keeper connects at its first renewal.
    #expect(waitUntil(seconds: 10) { ((try? world.connectionsToRedis()) ?? []).count >= 1 })
    kill(world.redis.pid, SIGSTOP)
    defer { kill(world.redis.pid, SIGCONT) }
    #expect(
      waitUntil(seconds: 5) { holder.standardError.contains("cannot renew lease") }, Comment(rawValue: holder.standardError))
  }
}
