import Foundation
import TestSupport
import Testing

/// A hostile review of leases kept in Redis: keys planted in the store, account names that look
/// like the store's own keys, a server that answers too slowly. Each test failed before its fix.
@Suite(.blocking) struct RedisReviewTests {
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
    let taken = try world.a.ok(["lease", "fence", "--ttl", "10m"])
    let lease = taken.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
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

extension RedisReviewTests {
  /// A server that sends its reply a byte at a time, each well within the timeout, never
  /// ending it: `lease` gives up after ACCOUNTS_NETWORK_TIMEOUT (exit 8, the command not run).
  /// The timeout used to bound each read only, and the command waited for as long as the
  /// server kept sending.
  @Test func aServerTricklingItsReplyIsGivenUpOn() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
    defer { world.close() }
    let trickle = try SpawnedProcess(
      "/usr/bin/python3",
      [
      "-c",
      """
      import socket, threading, time
      server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(8)
      print(server.getsockname()[1], flush=True)
      def serve(connection):
          try:
              connection.recv(65536)
              connection.sendall(b"$1000000\\r\\n")
              while True:
                  time.sleep(0.2)
                  connection.sendall(b"x")
          except OSError:
              pass
      server.settimeout(120)
      while True:
          threading.Thread(target=serve, args=(server.accept()[0],), daemon=True).start()
      """,
      ],
      environment: ProcessInfo.processInfo.environment, standardOutput: .pipe)
    defer {
      trickle.terminate()
      trickle.waitUntilExit()
    }
    let announced = String(decoding: readSome(from: trickle.outputDescriptor), as: UTF8.self)
    let port = try #require(announced.split(separator: "\n").first)
    let marker = world.a.keyring.root + "/ran"
    let lease = try world.a.run(
      ["lease", "qa1", "--", "/bin/sh", "-c", "touch \"$0\"", marker],
      environment: ["ACCOUNTS_LEASE_STORE": "redis://127.0.0.1:\(port)", "ACCOUNTS_NETWORK_TIMEOUT": "1"], timeout: 30)
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains("no reply within the timeout"), "\(lease.standardError)")
    #expect(!FileManager.default.fileExists(atPath: marker), "the command did not run")
  }
}

extension RedisReviewTests {
  /// Two backends with one lease_prefix name one pool: qa1@corp and qa1@corp2 are one account
  /// of it, under one key. `lease qa1@corp qa1@corp2 --count 2` handed both out in one lease,
  /// one account twice (the second login took the first one's session over); it is refused,
  /// and a pool with another account gives that one instead.
  @Test func oneAccountOfAPoolIsNotLeasedTwiceUnderTwoBackendNames() throws {
    let world = try RedisMachines(count: 1, users: ["qa1", "qa2"])
    defer { world.close() }
    let machine = world.a
    try machine.ok([
      "backend", "add", "corp2", "--adapter", "plain", "--set", "base_url=\(world.backend.url)/plain/plain",
      "--set", "allow_insecure_transport=true", "--set", "check_path=check",
      "--set", "lease_store=\(world.redis.tcpURL())", "--set", "lease_prefix=pool",
    ])
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

extension RedisReviewTests {
  /// A Redis that closes idle connections (its `timeout`, or a NAT dropping idle flows) while
  /// the keeper waits a third of the ttl: the keeper connects again and renews, nothing to say.
  /// It used to say at every renewal that it could not renew the lease (whose accounts "may be
  /// taken over"), and tried again only half an interval later.
  @Test func aKeeperWhoseIdleConnectionWasClosedRenewsWithoutAWord() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
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

  /// The same at the end: the keeper deletes the keys on a new connection, at once. It used to
  /// say it could not end the lease, which held its account for up to a ttl more.
  @Test func aKeeperWhoseIdleConnectionWasClosedEndsTheLeaseAtOnce() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
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

  /// How many EVALs the server ran.
  static func evalCalls(_ redis: RedisServer) throws -> Int {
    let stats = try redis.cli(["INFO", "commandstats"])
    guard let line = stats.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_eval:") }),
      let calls = line.split(separator: ",").first?.split(separator: "=").last
    else { return 0 }
    return Int(calls) ?? 0
  }
}

extension RedisReviewTests {
  /// A reply nested deeper than any Redis reply of these scripts (hiredis takes it) is garbage:
  /// exit 8, with the fix, as every other garbage. It was the one error without a fix.
  @Test func aReplyNestedTooDeepIsExit8WithTheFix() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
    defer { world.close() }
    let deep = try SpawnedProcess(
      "/usr/bin/python3",
      [
      "-c",
      """
      import socket
      server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(4)
      print(server.getsockname()[1], flush=True)
      server.settimeout(60)
      while True:
          connection, _ = server.accept()
          connection.recv(65536)
          connection.sendall(b"*1\\r\\n" * 6 + b":1\\r\\n")
          connection.close()
      """,
      ],
      environment: ProcessInfo.processInfo.environment, standardOutput: .pipe)
    defer {
      deep.terminate()
      deep.waitUntilExit()
    }
    let announced = String(decoding: readSome(from: deep.outputDescriptor), as: UTF8.self)
    let port = try #require(announced.split(separator: "\n").first)
    let lease = try world.a.run(
      ["lease", "qa1", "--", "true"], environment: ["ACCOUNTS_LEASE_STORE": "redis://127.0.0.1:\(port)"])
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains("check that the address names a Redis server"), "\(lease.standardError)")
  }
}

extension RedisReviewTests {
  /// `lease --ttl` takes the lease, logs in (here slowly), then detaches it: a Redis that closed
  /// the idle connection meanwhile (its `timeout`) is connected to again.
  @Test func aDetachedLeaseOutlivesAConnectionClosedWhileLoggingIn() throws {
    let world = try RedisMachines(count: 1, users: ["qa1"])
    defer { world.close() }
    try world.redis.cli(["CONFIG", "SET", "timeout", "1"])
    try world.backend.delay(seconds: 3)
    let lease = try world.a.run(["lease", "qa1", "--ttl", "10m"])
    #expect(lease.status == 0, "\(lease)")
    #expect(try world.a.leases().first?["expires_at"] is String)
  }
}
