import Foundation
import TestSupport
import Testing

/// Leases kept in Redis, shared by two "machines" (each its own HOME and keyring) that lease
/// the same accounts of one test backend, whose single sign-on is the witness: a second login
/// of an account takes the first one's session over. Which accounts of the pool a lease takes,
/// and for how long.
@Suite(.blocking) struct RedisLeaseTests {
  /// Each worker logs in to the backend itself (which takes over any other session of its
  /// account), then calls it twice with a pause between: a worker that shared its account with
  /// another would find its session taken over in between. It prints its account and fence.
  static let witness = """
    user=${ACCOUNTS_ACCOUNT%@corp}
    token=$(printf 'username=%s&password=pw-%s' "$user" "$user" \\
      | curl -sS --max-time 10 --data-binary @- "$0/plain/plain/login" \\
      | sed -n 's/.*"token": *"\\([0-9a-f]*\\)".*/\\1/p')
    [ -n "$token" ] || exit 90
    curl -sS --max-time 10 -H "AuthorisedToken:$token" "$0/plain/plain/me" | grep -q '"ok": true' || exit 91
    sleep 0.3
    curl -sS --max-time 10 -H "AuthorisedToken:$token" "$0/plain/plain/me" | grep -q '"ok": true' || exit 92
    echo "$ACCOUNTS_ACCOUNT $ACCOUNTS_LEASE_FENCE"
    """

  @Test func workersOfTwoMachinesNeverShareAnAccount() throws {
    let world = try Fixture.sharingRedis()
    defer { world.close() }
    let workers = try world.machines.flatMap { machine in
      try (0..<4).map { _ in
        try BackgroundAccounts(
          machine, ["lease", "--tag", "qa", "--wait", "60s", "--", "/bin/sh", "-c", Self.witness, world.backend.url])
      }
    }
    var leased: [String] = []
    for worker in workers {
      let result = try worker.finish()
      #expect(result.status == 0, "\(result)")
      leased.append(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    #expect(Set(leased).count == 8, "no account was leased twice with one fence: \(leased)")
    #expect(world.leaseKeysGone(), "every keeper deleted its key")
    #expect(try world.a.leases().isEmpty && world.b.leases().isEmpty)
  }

  @Test func aLeaseHeldOnOneMachineIsSeenAndRespectedOnTheOther() throws {
    let world = try Fixture.sharingRedis()
    defer { world.close() }
    let root = world.a.keyring.root
    let holder = try world.a.holding(["qa1"], ready: root + "/ready", release: root + "/go")

    let busy = try world.b.run(["lease", "qa1", "--", "true"])
    #expect(busy.status == 10, "\(busy)")
    #expect(busy.standardError.contains("no account free: qa1@corp held by "), "\(busy.standardError)")
    #expect(busy.standardError.contains(":\(holder.pid) since "), "names A's holder: \(busy.standardError)")
    let seen = try world.b.leases()
    #expect(seen.map { $0["account"] as? String } == ["qa1@corp"], "\(seen)")
    #expect((seen.first?["holder"] as? String)?.hasSuffix(":\(holder.pid)") == true, "\(seen)")
    #expect(seen.first?["expires_at"] is NSNull, "a held lease: \(seen)")
    let listed = try #require(try world.b.json(["list", "--json"]) as? [[String: Any]])
    let marks = listed.map { ($0["user"] as? String ?? "", ($0["lease"] as? [String: Any])?["holder"] as? String) }
    #expect(marks.first { $0.0 == "qa1" }?.1 == seen.first?["holder"] as? String, "\(listed)")
    #expect(marks.first { $0.0 == "qa2" }?.1 == nil, "\(listed)")
    let remove = try world.b.run(["remove", "qa1"])
    #expect(remove.status == 1 && remove.standardError.contains(":\(holder.pid) since "), "\(remove)")
    let release = try world.b.run(["release", seen.first?["lease"] as? String ?? ""])
    #expect(release.status == 1 && release.standardError.contains("held by the running command"), "\(release)")
    #expect(try world.leaseKeys() == ["accounts:lease:corp:qa1"], "a held lease is not released")

    _ = FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish() == 0)
    #expect(world.leaseKeysGone(), "the lease ended with its command")
    #expect(try world.b.leases().isEmpty)
    try world.b.ok(["lease", "qa1", "--", "true"])
  }

  /// Killing the command a lease became leaves its keeper to see the lease's pipe end: it
  /// deletes the key at once, long before the 30 s ttl. The keeper ignores the signals a
  /// terminal or a kill of the process group sends: they end the command, which ends the lease.
  @Test func killingTheCommandFreesTheAccountAtOnce() throws {
    let world = try Fixture.sharingRedis()
    defer { world.close() }
    let root = world.a.keyring.root
    let holder = try world.a.holding(["qa1"], ready: root + "/ready", release: root + "/never")
    #expect(try world.leaseKeys() == ["accounts:lease:corp:qa1"])
    let keeper = try #require(holder.keeper())
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP] { kill(keeper, signal) }
    holder.kill()
    let after = try world.b.run(["lease", "qa1", "--wait", "10s", "--", "true"])
    #expect(after.status == 0, "freed well before the ttl: \(after)")
  }

  /// Killing the keeper too leaves the key to Redis, which drops it when the ttl runs out.
  @Test func killingTheCommandAndItsKeeperFreesTheAccountWithinTheTTL() throws {
    let world = try Fixture.sharingRedis()
    defer { world.close() }
    let root = world.a.keyring.root
    let holder = try world.a.holding(["qa1", "--ttl", "1s"], ready: root + "/ready", release: root + "/never")
    let keeper = try #require(holder.keeper(), "the keeper of the lease")
    kill(keeper, SIGKILL)
    #expect(waitUntil(seconds: 10) { processIsGone(keeper) })
    holder.kill()
    #expect(waitUntil(seconds: 10) { (try? world.leaseKeys()) == [] }, "expired")
    #expect(try world.b.leases().isEmpty)
    try world.b.ok(["lease", "qa1", "--", "true"])
  }

  /// Machine B reaches the Redis through its unix socket: the same store.
  @Test func theFenceOnlyGrowsAcrossMachines() throws {
    let world = try Fixture.sharingRedis()
    defer { world.close() }
    let echo = ["--", "/bin/sh", "-c", "echo \"$ACCOUNTS_LEASE_FENCE\""]
    var fences: [Int] = []
    try world.b.ok(["backend", "set", "corp", "lease_store=\(world.redis.socketURL)"])
    for machine in [world.a, world.b, world.a] {
      let lease = try machine.ok(["lease", "qa1"] + echo)
      fences.append(Int(lease.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
    }
    let detached = try #require(try world.b.json(["lease", "qa1", "--ttl", "30s", "--json"]) as? [String: Any])
    fences.append(detached["fence"] as? Int ?? -1)
    try world.a.ok(["release", try #require(detached["lease"] as? String)])
    for machine in [world.a, world.b] {
      fences.append(
        Int(try machine.ok(["lease", "qa1"] + echo).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
          ?? -1)
    }
    #expect(fences.first ?? 0 >= 1 && zip(fences, fences.dropFirst()).allSatisfy { $0 < $1 }, "\(fences)")
  }

  /// A store that cannot be reached, or answers what Redis would not (here an HTTP server), is
  /// never replaced by this machine's: exit 8, the command not run; `list` still shows the
  /// accounts and warns.
  @Test func aStoppedRedisIsExit8AndTheCommandDoesNotRun() throws {
    let world = try Fixture.sharingRedis(machines: 1)
    defer { world.close() }
    let marker = world.a.keyring.root + "/ran"
    let notRedis = "redis://127.0.0.1:" + (world.backend.url.split(separator: ":").last ?? "")
    try world.a.ok(["backend", "set", "corp", "lease_store=\(notRedis)"])
    let garbage = try world.a.run(["lease", "qa1", "--", "/bin/sh", "-c", "touch \"$0\"", marker])
    #expect(garbage.status == 8 && garbage.standardError.contains(notRedis), "\(garbage)")
    #expect(!FileManager.default.fileExists(atPath: marker), "the command did not run")
    try world.a.ok(["backend", "set", "corp", "lease_store=\(world.redis.tcpURL())"])
    world.redis.stop()
    let lease = try world.a.run(["lease", "qa1", "--", "/bin/sh", "-c", "touch \"$0\"", marker])
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains(world.redis.tcpURL()), "names the store: \(lease.standardError)")
    #expect(!FileManager.default.fileExists(atPath: marker), "the command did not run")
    let leases = try world.a.run(["leases"])
    #expect(leases.status == 8 && leases.standardError.contains(world.redis.tcpURL()), "\(leases)")
    let list = try world.a.run(["list"])
    #expect(list.status == 0 && list.standardOutput.contains("qa1"), "\(list)")
    #expect(list.standardError.contains("accounts: warning: leases not shown"), "\(list.standardError)")
  }

  /// Losing the store while the command runs is said, and the command keeps running: its exit
  /// status is still the lease's.
  @Test func losingRedisWhileTheCommandRunsIsSaidAndTheCommandGoesOn() throws {
    let world = try Fixture.sharingRedis(machines: 1)
    defer { world.close() }
    let root = world.a.keyring.root
    let holder = try world.a.holding(
      ["qa1", "--ttl", "600ms"], ready: root + "/ready", release: root + "/go", status: 7)
    world.redis.stop()
    #expect(waitUntil(seconds: 20) { holder.standardError.contains("cannot renew lease") }, "\(holder.standardError)")
    #expect(holder.process.isRunning, "the command goes on")
    _ = FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish() == 7)
    #expect(holder.standardError.contains("the command keeps running"), "\(holder.standardError)")
  }

  /// Through a Redis that asks for a password: the password reaches neither the command nor
  /// the keeper's argv or environment, nor any file; and the command gets no connection to the
  /// store (the one `lease` logged in with, inherited, would be open for anything it runs to
  /// send commands, CONFIG GET requirepass included).
  @Test func aPasswordProtectedStoreLeavesTheCommandNeitherPasswordNorConnection() throws {
    let password = "Redis-pw-4u7q"
    let world = try Fixture.sharingRedis(machines: 1, password: password)
    defer { world.close() }
    let root = world.a.keyring.root
    let holder = try world.a.holding(["qa1", "--ttl", "1s"], ready: root + "/ready", release: root + "/go")
    let keeper = try #require(holder.keeper())
    #expect(try world.leaseKeys() == ["accounts:lease:corp:qa1"])
    #expect(try world.a.leases().count == 1)
    for pid in [holder.pid, keeper] {
      for file in ["environ", "cmdline"] {
        let text = procFile("/proc/\(pid)/\(file)")
        #expect(!text.isEmpty && !text.contains(password), "/proc/\(pid)/\(file)")
      }
    }
    let files = FileManager.default
    let descriptors = try files.contentsOfDirectory(atPath: "/proc/\(holder.pid)/fd").map {
      try files.destinationOfSymbolicLink(atPath: "/proc/\(holder.pid)/fd/\($0)")
    }
    // The keeper renews every third of a second, on a connection of its own.
    #expect(waitUntil(seconds: 10) { (try? world.connectionsToRedis().isEmpty) == false })
    let connections = try world.connectionsToRedis()
    #expect(connections.isDisjoint(with: descriptors), "the command's descriptors: \(descriptors)")
    _ = FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish() == 0)
    #expect(world.leaseKeysGone())
    #expect(filesContaining(password, under: root) == [])
  }

  @Test func aDetachedLeaseIsSeenAndReleasedFromTheOtherMachine() throws {
    let world = try Fixture.sharingRedis()
    defer { world.close() }
    let taken = try #require(try world.a.json(["lease", "qa1", "--ttl", "30s", "--json"]) as? [String: Any])
    let id = try #require(taken["lease"] as? String)
    let seen = try world.b.leases()
    #expect(seen.map { $0["lease"] as? String } == [id], "\(seen)")
    #expect(seen.first?["expires_at"] as? String == taken["expires_at"] as? String)
    #expect(try world.b.run(["lease", "qa1", "--", "true"]).status == 10)

    for unknown in ["aaaaaaaaaaaaaaaa", "not-a-lease"] {
      let refused = try world.b.run(["release", unknown])
      #expect(refused.status == 1 && refused.standardError.contains("no lease"), "\(refused)")
    }
    #expect(try world.a.leases().count == 1, "a failed release frees nothing")
    #expect(try world.b.ok(["release", id]).standardError.contains("released qa1@corp"))
    #expect(try world.a.leases().isEmpty)
    #expect(try world.leaseKeys() == [])
    try world.a.ok(["lease", "qa1", "--", "true"])
  }

  /// An account that cannot log in is skipped and the others are taken at once, also those
  /// leased with it: not found still held by the lease `lease` has just given up (whose keeper
  /// deletes the keys a moment later), which would be exit 10 naming itself as their holder.
  @Test func anAccountThatCannotLogInIsSkippedAndItsPartnersTakenAgain() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1", "qa2", "qa3"])
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
  /// least that long, or a runner counting on it would hold the account after another took it:
  /// with a ttl of a fraction of a second too.
  @Test func aDetachedLeaseKeyLivesUntilTheExpiryShown() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let taken = try #require(try world.a.json(["lease", "qa1", "--ttl", "10s10ms", "--json"]) as? [String: Any])
    let expiry = try #require(ISO8601DateFormatter().date(from: taken["expires_at"] as? String ?? ""))
    let expireTime = try world.redis.cli(["PEXPIRETIME", "accounts:lease:corp:qa1"])
    let milliseconds = try #require(Int64(expireTime.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(milliseconds >= Int64(expiry.timeIntervalSince1970 * 1000), "key expires \(milliseconds), shown \(expiry)")
  }

  /// An account named `fence` is an account like any other: its key, `PREFIX:fence`, is no
  /// fence counter (those are `PREFIX:USER:fence`). `leases` shows its lease and `release` ends
  /// it.
  @Test func anAccountNamedFenceIsShownAndReleased() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["fence"])
    defer { world.close() }
    let taken = try world.a.ok(["lease", "fence", "--ttl", "10m"])
    let lease = taken.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(try world.a.leases().map { $0["account"] as? String } == ["fence@corp"])
    let released = try world.a.run(["release", lease])
    #expect(released.status == 0, "\(released)")
    #expect(try world.redis.cli(["EXISTS", "accounts:lease:corp:fence"]) == "0\n")
  }

  /// Two backends with one lease_prefix name one pool: qa1@corp and qa1@corp2 are one account
  /// of it, under one key. `lease qa1@corp qa1@corp2 --count 2` would hand one account out
  /// twice in one lease (the second login taking the first one's session over): it is refused,
  /// and a pool with another account gives that one instead.
  @Test func oneAccountOfAPoolIsNotLeasedTwiceUnderTwoBackendNames() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1", "qa2"])
    defer { world.close() }
    let machine = world.a
    try machine.addBackend(
      "corp2", servedBy: world.backend,
      settings: ["check_path=check", "lease_store=\(world.redis.tcpURL())", "lease_prefix=pool"])
    try machine.ok(["backend", "set", "corp", "lease_prefix=pool"])
    try machine.ok(["add", "qa1@corp2", "--remember", "--password-stdin"], stdin: "pw-qa1\n")
    let twice = try machine.run(["lease", "qa1@corp", "qa1@corp2", "--count", "2", "--", "true"])
    #expect(twice.status == 2, "\(twice)")
    #expect(twice.standardError.contains("qa1@corp and qa1@corp2 are one account"), "\(twice.standardError)")
    let other = try machine.run(
      ["lease", "qa1@corp", "qa1@corp2", "qa2@corp", "--count", "2", "--", "/bin/sh", "-c", "echo $ACCOUNTS_LEASED"])
    #expect(other.status == 0 && other.standardOutput == "qa1@corp qa2@corp\n", "\(other)")
  }
}
