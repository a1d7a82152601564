import Foundation
import TestSupport
import Testing

/// A lease store that holds or answers what accounts does not write: a fence counter or a lease
/// key planted in it, a server that trickles its reply or nests it too deep. `lease` takes
/// nothing and runs nothing: exit 8, naming the key or the fix.
@Suite(.blocking) struct RedisStoreGarbageTests {
  /// A fence counter holding text (planted, or written by another program under the prefix)
  /// fails the acquire script half way, and Redis runs a script atomically but does not undo
  /// what it did before an error: the first account must not stay held, by nobody, for a held
  /// lease's ttl. Nothing is taken, and the error names the key.
  @Test func aFenceKeyHoldingTextTakesNothing() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1", "qa2"])
    defer { world.close() }
    try world.redis.cli(["SET", "accounts:lease:corp:qa2:fence", "not a number"])
    let lease = try world.a.run(["lease", "qa1", "qa2", "--count", "2", "--", "true"])
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains("accounts:lease:corp:qa2:fence"), "\(lease.standardError)")
    #expect(try world.leaseKeys() == [], "nothing held")
    #expect(try world.redis.cli(["EXISTS", "accounts:lease:corp:qa1:fence"]) == "0\n", "qa1's fence untouched")
  }

  /// A lease key holding what accounts does not write is garbage from the store (exit 8, naming
  /// the key), not an account "being taken" at this moment (exit 10), which --wait would wait
  /// out in full for a key that never goes away.
  @Test func aGarbageLeaseKeyIsExit8NamingTheKey() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    try world.redis.cli(["SET", "accounts:lease:corp:qa1", "garbage"])
    let lease = try world.a.run(["lease", "qa1", "--wait", "30s", "--", "true"])
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains("(accounts:lease:corp:qa1) holds what accounts does not write"), "\(lease)")
  }

  /// A server that sends its reply a byte at a time, each well within the timeout, never
  /// ending it: `lease` gives up after ACCOUNTS_NETWORK_TIMEOUT (exit 8, the command not run).
  /// The timeout bounds the whole reply, not each read, or the command would wait for as long
  /// as the server kept sending.
  @Test func aServerTricklingItsReplyIsGivenUpOn() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
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
    try world.a.ok(["backend", "set", "corp", "lease_store=redis://127.0.0.1:\(port)"])
    let lease = try world.a.run(
      ["lease", "qa1", "--", "/bin/sh", "-c", "touch \"$0\"", marker],
      environment: ["ACCOUNTS_NETWORK_TIMEOUT": "1"], timeout: 30)
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains("did not answer everything asked within 1 s (ACCOUNTS_NETWORK_TIMEOUT)"), "\(lease.standardError)")
    #expect(!FileManager.default.fileExists(atPath: marker), "the command did not run")
  }

  /// A reply nested deeper than any Redis reply of these scripts (hiredis takes it) is garbage:
  /// exit 8, with the fix, as every other garbage.
  @Test func aReplyNestedTooDeepIsExit8WithTheFix() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
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
    try world.a.ok(["backend", "set", "corp", "lease_store=redis://127.0.0.1:\(port)"])
    let lease = try world.a.run(["lease", "qa1", "--", "true"])
    #expect(lease.status == 8, "\(lease)")
    #expect(lease.standardError.contains("check that the address names a Redis server"), "\(lease.standardError)")
  }

  /// Candidates whose keys accounts cannot read (a list at one's lease key, a hash at
  /// another's fence key, a third's fence counter past what accounts reads back) are skipped,
  /// each with a warning naming its key and how to delete it, and a free one is taken: one
  /// such key took `lease --tag` down for the whole pool (exit 8). Nothing of theirs is
  /// touched.
  @Test func candidatesWithUnreadableKeysAreSkippedAndAFreeOneTaken() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1", "qa2", "qa3", "qa4"])
    defer { world.close() }
    try world.redis.cli(["RPUSH", "accounts:lease:corp:qa1", "a"])
    try world.redis.cli(["HSET", "accounts:lease:corp:qa2:fence", "f", "v"])
    try world.redis.cli(["SET", "accounts:lease:corp:qa3:fence", "999999999999999999"])
    let lease = try world.a.run(["lease", "--tag", "qa", "--", "/bin/sh", "-c", "echo \"$ACCOUNTS_LEASED\""])
    #expect(lease.status == 0 && lease.standardOutput == "qa4@corp\n", "\(lease)")
    for (account, key) in [
      ("qa1", "accounts:lease:corp:qa1"), ("qa2", "accounts:lease:corp:qa2:fence"), ("qa3", "accounts:lease:corp:qa3:fence"),
    ] {
      let warning = try #require(lease.standardError.split(separator: "\n").first { $0.contains("skipped \(account)@corp") })
      #expect(warning.contains("(\(key))") && warning.contains("`redis-cli DEL '\(key)'`"), "\(warning)")
    }
    #expect(try world.redis.cli(["GET", "accounts:lease:corp:qa3:fence"]) == "999999999999999999\n")
    #expect(try world.redis.cli(["TYPE", "accounts:lease:corp:qa1"]) == "list\n")
  }

  /// A fence counter one below the largest fence accounts reads back (2^53 - 1, exact in JSON
  /// and in Redis's Lua) gives one lease that fence; then the counter is full and the account
  /// is refused (exit 8, naming the key), never given a fence past it that its readers would
  /// take for another, or refuse.
  @Test func aFenceNeverPassesTheLargestAccountsReadsBack() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    try world.redis.cli(["SET", "accounts:lease:corp:qa1:fence", "9007199254740990"])
    let taken = try #require(try world.a.json(["lease", "qa1", "--ttl", "10m", "--json"]) as? [String: Any])
    #expect(taken["fence"] as? Int == 9_007_199_254_740_991, "\(taken)")
    try world.a.ok(["release", try #require(taken["lease"] as? String)])
    let full = try world.a.run(["lease", "qa1", "--", "true"])
    #expect(full.status == 8, "\(full)")
    #expect(full.standardError.contains("(accounts:lease:corp:qa1:fence) holds the largest fence"), "\(full.standardError)")
    #expect(try world.redis.cli(["GET", "accounts:lease:corp:qa1:fence"]) == "9007199254740991\n")
  }

  /// A value under the prefix longer than any lease record (17 MiB here) is an unreadable row
  /// of `leases`, never read whole, and `release` of another lease reads only the keys that
  /// may hold it: both exited 8 for the whole pool ("a reply over 16 MiB").
  @Test func aValueLongerThanARecordIsAnUnreadableRow() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let id = try world.a.ok(["lease", "qa1", "--ttl", "10m"]).standardOutput.trimmingCharacters(in: .newlines)
    try world.redis.cli(["SETRANGE", "accounts:lease:corp:big", String(17 << 20), "x"])
    let leases = try world.a.run(["leases"])
    #expect(leases.status == 0, "\(leases)")
    #expect(leases.standardOutput.contains(id) && leases.standardOutput.contains("accounts:lease:corp:big"), "\(leases)")
    #expect(
      leases.standardError.contains("(accounts:lease:corp:big) holds more than a lease record"), "\(leases.standardError)")
    let released = try world.a.run(["release", id])
    #expect(released.status == 0 && released.standardError.contains("released qa1@corp"), "\(released)")
  }

  /// A key under the prefix whose name is not UTF-8 (no account's: user names are) is an
  /// unreadable row of `leases`, its bytes outside ASCII escaped, with the warning and fix; it
  /// was left out without a word.
  @Test func aKeyNamedInBytesOtherThanUTF8IsAnUnreadableRow() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    try world.redis.cli(["EVAL", "redis.call('SET', KEYS[1] .. '\\255\\254', 'x')", "1", "accounts:lease:corp:"])
    let leases = try world.a.run(["leases"])
    #expect(leases.status == 0, "\(leases)")
    #expect(leases.standardOutput.contains("accounts:lease:corp:\\xff\\xfe"), "\(leases)")
    #expect(
      leases.standardError.contains("(accounts:lease:corp:\\xff\\xfe) has a name that is not UTF-8"),
      "\(leases.standardError)")
  }
}
