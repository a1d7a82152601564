import Foundation
import TestSupport
import Testing

/// The shared lease store's password: a backend's secret setting, kept in the keyring, given to
/// a real redis-server with requirepass and shown nowhere else; addresses and settings accounts
/// refuses.
@Suite(.blocking) struct RedisAuthTests {
  /// `list` never touches D-Bus, so it does not read a store's password from the keyring: it
  /// says the store's leases are left out (and where to see them), and still marks those of
  /// another store. Here the session bus is gone for it, so reading the password would fail.
  @Test func listLeavesOutAStoreWithAPasswordAndShowsTheOthers() throws {
    let world = try Fixture.pool(["qa1", "qa2"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.addBackend("other", servedBy: world.backend)
    try sandbox.ok(["add", "qa2@other", "--remember", "--password-stdin"], stdin: "pw-qa2\n")
    try #require(try world.useRedis().status == 0)
    try sandbox.ok(["lease", "qa2@other", "--ttl", "5m"])
    let list = try sandbox.run(
      ["list", "--json"], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=" + sandbox.keyring.root + "/no-bus"])
    #expect(list.status == 0, "\(list)")
    #expect(list.standardError.contains("has a password, which list does not read from the keyring"), "\(list.standardError)")
    #expect(list.standardError.contains("`accounts leases` shows its leases"), "\(list.standardError)")
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
    #expect(rows.first { $0["account"] as? String == "qa2@other" }?["lease"] is [String: Any], "the local lease is marked")
  }

  @Test func thePasswordIsKeptInTheKeyringAndALeaseUsesIt() throws {
    let world = try Fixture.pool(["qa1", "qa2"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let (sandbox, password) = (world.sandbox, world.redisPassword!)
    let set = try world.useRedis()
    #expect(set.status == 0, "\(set)")
    #expect(!set.standardOutput.contains(password) && !set.standardError.contains(password))
    #expect(set.standardError.contains("lease_store_password stored in the keyring"), "\(set)")
    let show = try sandbox.ok(["backend", "show", "corp"]).standardOutput
    #expect(show.contains(world.redis.tcpURL()), "\(show)")
    let line = show.split(separator: "\n").first { $0.contains("lease_store_password") }
    #expect(line?.contains("(in keyring)") == true, "\(show)")
    #expect(!show.contains(password))

    let leased = try sandbox.ok(["lease", "qa1", "--", "/bin/sh", "-c", "echo \"$ACCOUNTS_LEASE_FENCE\""])
    #expect(try world.redis.cli(["GET", "accounts:lease:corp:qa1:fence"]) == leased.standardOutput, "the fence is in Redis")
    #expect(try sandbox.invariantViolations().isEmpty)

    try sandbox.ok(["backend", "remove", "corp", "--force"])
    #expect(try sandbox.allKeyringItems().isEmpty, "the password left the keyring with its backend")
  }

  /// While a lease's command runs, no process this user can read (accounts, its keeper, the
  /// command) has the password in its command line or environment, and no file under the
  /// sandbox holds it. redis-server itself, started with --requirepass by the test, is left out.
  @Test func thePasswordNeverShowsInProcessesOrFiles() throws {
    let world = try Fixture.pool(["qa1"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let (sandbox, password) = (world.sandbox, world.redisPassword!)
    try #require(try world.useRedis().status == 0)
    let root = sandbox.keyring.root
    let holder = try world.holding(["qa1"], ready: root + "/ready", release: root + "/go")
    defer { _ = try? holder.finish() }
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: root + "/ready") })
    #expect(try world.redis.cli(["EXISTS", "accounts:lease:corp:qa1"]) == "1\n", "held in Redis")

    var seen: [String] = []
    var leaking: [String] = []
    let needle = Data(password.utf8)
    for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
      guard let pid = Int32(entry), pid != world.redis.pid else { continue }
      guard let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
      let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
      let shown = String(decoding: command.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
      if shown.contains("__lease-keeper") || shown.contains(root + "/ready") || pid == holder.pid { seen.append(shown) }
      if command.range(of: needle) != nil || environment.range(of: needle) != nil { leaking.append("\(pid): \(shown)") }
    }
    #expect(leaking.isEmpty, "\(leaking)")
    #expect(seen.contains { $0.contains("__lease-keeper") }, "the keeper was read: \(seen)")
    #expect(seen.contains { $0.contains(root + "/ready") }, "the command was read: \(seen)")
    #expect(filesContaining(password, under: root).isEmpty)

    FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish().status == 0)
    #expect(waitUntil(seconds: 20) { (try? world.redis.cli(["EXISTS", "accounts:lease:corp:qa1"])) == "0\n" })
  }

  /// A server in Redis's place that answers every command with an error repeating what it was
  /// sent: the password it got in AUTH must not reach stderr.
  @Test func aServerThatEchoesThePasswordDoesNotGetItPrinted() throws {
    let world = try Fixture.pool(["qa1"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let (sandbox, password) = (world.sandbox, world.redisPassword!)
    let echo = try SpawnedProcess(
      "/usr/bin/python3",
      [
      "-c",
      """
      import socket, sys
      server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(4)
      print(server.getsockname()[1], flush=True)
      server.settimeout(60)
      for _ in range(4):
          connection, _ = server.accept()
          data = connection.recv(65536).replace(b"\\r\\n", b" ")
          connection.sendall(b"-ERR you sent " + data + b"\\r\\n")
          connection.close()
      """,
      ],
      environment: ProcessInfo.processInfo.environment, standardOutput: .pipe)
    defer {
      echo.terminate()
      echo.waitUntilExit()
    }
    let port = try #require(String(decoding: readSome(from: echo.outputDescriptor), as: UTF8.self).split(separator: "\n").first)
    try #require(try world.useRedis(url: "redis://127.0.0.1:\(port)").status == 0)
    let result = try sandbox.run(["lease", "qa1", "--", "/bin/sh", "-c", "echo ran"])
    #expect(result.status == 8 && !result.standardOutput.contains("ran"), "\(result)")
    #expect(result.standardError.contains("it refused the password (ERR)"), "\(result.standardError)")
    #expect(!result.standardError.contains(password), "\(result.standardError)")
  }

  @Test func aWrongOrMissingPasswordIsExit8NamingTheStoreNotThePassword() throws {
    let world = try Fixture.pool(["qa1"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let (sandbox, password) = (world.sandbox, world.redisPassword!)
    for database in [0, 2] {
      let url = world.redis.tcpURL(database: database)
      try #require(try world.useRedis(url: url, password: "not-" + password).status == 0)
      let wrong = try sandbox.run(["lease", "qa1", "--", "/bin/sh", "-c", "echo ran"])
      #expect(wrong.status == 8 && !wrong.standardOutput.contains("ran"), "\(wrong)")
      #expect(wrong.standardError.contains("lease store \(url): it refused the password"), "\(wrong.standardError)")
      #expect(!wrong.standardError.contains(password), "\(wrong.standardError)")

      try sandbox.ok(["backend", "set", "corp", "--unset", "lease_store_password"])
      for arguments in [["lease", "qa1", "--", "/bin/sh", "-c", "echo ran"], ["leases"]] {
        let missing = try sandbox.run(arguments)
        #expect(missing.status == 8 && !missing.standardOutput.contains("ran"), "\(arguments) \(missing)")
        #expect(missing.standardError.contains("lease store \(url): it asks for a password"), "\(missing.standardError)")
        #expect(missing.standardError.contains("--secret lease_store_password"), "\(missing.standardError)")
      }
    }
  }

  /// A password kept for a server that has none: the fix is to drop it, not to give another.
  @Test func aPasswordForAServerWithoutOneIsExit8SayingToUnsetIt() throws {
    let world = try Fixture.pool(["qa1"]).runningRedis()
    defer { world.close() }
    let redis = world.redis
    try world.sandbox.ok(
      ["backend", "set", "corp", "lease_store=\(redis.tcpURL())", "--secret-stdin", "lease_store_password"],
      stdin: "pw-for-nothing\n")
    let result = try world.sandbox.run(["lease", "qa1", "--", "true"])
    #expect(result.status == 8, "\(result)")
    #expect(result.standardError.contains("lease store \(redis.tcpURL()): it has no password"), "\(result.standardError)")
    #expect(result.standardError.contains("--unset lease_store_password"), "\(result.standardError)")
    #expect(!result.standardError.contains("pw-for-nothing"))
  }

  @Test func badStoreSettingsAreUsageErrorsWithTheirFix() throws {
    let world = try Fixture.pool(["qa1"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let (sandbox, password) = (world.sandbox, world.redisPassword!)
    let cases: [(String, String, String)] = [
      ("lease_store=rediss://ci-redis:6380/2", "TLS", "TLS tunnel"),
      ("lease_store=redis://:\(password)@ci-redis", "password", "--secret-stdin lease_store_password"),
      ("lease_store=redis://ci:\(password)@ci-redis:6379/2", "password", "--secret-stdin lease_store_password"),
      ("lease_store=redis://ci-redis:0", "invalid port", "redis://ci-redis:6379/2"),
      ("lease_store=ci-redis", "is not redis://", "redis://ci-redis:6379/2"),
      ("lease_prefix=", "lease_prefix must be", "lease_prefix="),
      ("lease_prefix=a b", "lease_prefix must be", "lease_prefix="),
      ("lease_store_password=\(password)", "secret setting", "--secret-stdin lease_store_password"),
    ]
    for (setting, problem, fix) in cases {
      let result = try sandbox.run(["backend", "set", "corp", setting])
      #expect(result.status == 2, "\(setting): \(result)")
      #expect(result.standardError.contains(problem), "\(setting): \(result.standardError)")
      #expect(result.standardError.contains(fix), "\(setting): \(result.standardError)")
      #expect(!result.standardError.contains(password), "\(setting): \(result.standardError)")
    }
    #expect(try sandbox.ok(["backend", "show", "corp"]).standardOutput.contains("lease_") == false, "nothing kept")

    for store in ["garbage", "redis://ci:\(password)@127.0.0.1", "rediss://127.0.0.1"] {
      for arguments in [["lease", "qa1", "--", "true"], ["leases"]] {
        let result = try sandbox.run(arguments, environment: ["ACCOUNTS_LEASE_STORE": store])
        #expect(result.status == 2, "\(store) \(arguments): \(result)")
        #expect(result.standardError.contains("ACCOUNTS_LEASE_STORE"), "\(result.standardError)")
        #expect(!result.standardError.contains(password), "\(result.standardError)")
      }
    }
  }

  /// A backend's password goes only to the server its lease_store names: ACCOUNTS_LEASE_STORE
  /// naming another server, or another database, is refused before anything is sent there,
  /// naming both stores (one pool, one store).
  @Test func thePasswordGoesOnlyToTheServerItWasGivenFor() throws {
    let world = try Fixture.pool(["qa1"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let sandbox = world.sandbox
    try #require(try world.useRedis().status == 0)
    let other = try RedisServer(directory: sandbox.keyring.root)
    defer { other.stop() }
    for store in [other.tcpURL(), world.redis.tcpURL(database: 3)] {
      let elsewhere = try sandbox.run(["lease", "qa1", "--", "true"], environment: ["ACCOUNTS_LEASE_STORE": store])
      #expect(elsewhere.status == 2, "\(elsewhere)")
      #expect(elsewhere.standardError.contains(store), "\(elsewhere.standardError)")
      #expect(elsewhere.standardError.contains(world.redis.tcpURL()), "\(elsewhere.standardError)")
    }
    #expect(try other.cli(["DBSIZE"]) == "0\n", "nothing sent there")
    // Without a lease_store of its own, the backend's password is for the store it leases in.
    try sandbox.ok(["backend", "set", "corp", "--unset", "lease_store"])
    let chosen = try sandbox.run(["leases"], environment: ["ACCOUNTS_LEASE_STORE": world.redis.tcpURL()])
    #expect(chosen.status == 0, "\(chosen)")
  }

  /// Two machines whose backends have different names share one pool through lease_prefix.
  @Test func oneLeasePrefixIsOnePoolAcrossBackendNames() throws {
    let world = try Fixture.pool(["qa1"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let (sandbox, password) = (world.sandbox, world.redisPassword!)
    try #require(try world.useRedis().status == 0)
    try sandbox.ok(["backend", "set", "corp", "lease_prefix=qa-pool"])
    // The other machine names the same backend corp2.
    let other = try Sandbox()
    defer { other.close() }
    try other.addBackend("corp2", servedBy: world.backend, settings: ["check_path=check"])
    try other.ok(["add", "qa1", "--remember", "--password-stdin"], stdin: "pw-qa1\n")
    try other.ok(
      ["backend", "set", "corp2", "lease_store=\(world.redis.tcpURL())", "lease_prefix=qa-pool", "--secret-stdin",
       "lease_store_password"],
      stdin: password + "\n")

    let root = sandbox.keyring.root
    let holder = try world.holding(["qa1"], ready: root + "/ready", release: root + "/go")
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: root + "/ready") })
    #expect(try world.redis.cli(["EXISTS", "qa-pool:qa1"]) == "1\n")
    let busy = try other.run(["lease", "qa1", "--", "true"])
    #expect(busy.status == 10, "\(busy)")
    #expect(busy.standardError.contains("no account free: qa1@corp2 held by"), "\(busy.standardError)")
    FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish().status == 0)
    let first = try String(contentsOfFile: root + "/ready", encoding: .utf8).split(separator: " ").last
    let after = try other.run(["lease", "qa1", "--", "/bin/sh", "-c", "echo \"$ACCOUNTS_LEASE_FENCE\""])
    #expect(after.status == 0, "\(after)")
    #expect(try world.redis.cli(["GET", "qa-pool:qa1:fence"]) == after.standardOutput, "one fence for the pool")
    #expect(UInt64(after.standardOutput.dropLast()) ?? 0 > UInt64(first?.dropLast() ?? "") ?? .max, "\(after)")
  }

  /// lease_store_password is accounts' own: commands that do not lease never read it (a
  /// session works with its keyring item gone), the lease commands do.
  @Test func onlyTheLeaseCommandsReadThePassword() throws {
    let world = try Fixture.pool(["qa1"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let sandbox = world.sandbox
    try #require(try world.useRedis().status == 0)
    try sandbox.ok(["exec", "qa1", "--", "true"])
    let cleared = try runProcess(
      "/usr/bin/secret-tool", ["clear", "backend", "corp", "kind", "setting:lease_store_password"],
      environment: sandbox.environment, timeout: 20)
    try #require(cleared.status == 0, "\(cleared)")
    let exec = try sandbox.run(["exec", "qa1", "--", "/bin/sh", "-c", "echo \"$ACCOUNTS_ACCOUNT\""])
    #expect(exec.status == 0 && exec.standardOutput == "qa1@corp\n", "\(exec)")
    let lease = try sandbox.run(["lease", "qa1", "--", "true"])
    #expect(lease.status != 0 && lease.standardError.contains("lease_store_password is not in the keyring"), "\(lease)")
  }

  /// `backend add` takes the password like any secret setting, so one command sets a backend up
  /// for a shared store.
  @Test func backendAddTakesThePasswordFromStdin() throws {
    let world = try Fixture.pool(["qa1"]).runningRedis(password: Self.newPassword())
    defer { world.close() }
    let (sandbox, password) = (world.sandbox, world.redisPassword!)
    let added = try sandbox.run(
      [
        "backend", "add", "corp2", "--adapter", "plain", "--set", "base_url=\(world.backend.url)/plain/plain",
        "--set", "allow_insecure_transport=true", "--set", "lease_store=\(world.redis.tcpURL())",
        "--secret-stdin", "lease_store_password",
      ], stdin: password + "\n")
    #expect(added.status == 0, "\(added)")
    #expect(!added.standardError.contains(password) && !added.standardOutput.contains(password))
    let show = try sandbox.ok(["backend", "show", "corp2"]).standardOutput
    #expect(show.split(separator: "\n").contains { $0.contains("lease_store_password") && $0.contains("(in keyring)") }, "\(show)")
    try sandbox.ok(["add", "qa1@corp2", "--remember", "--password-stdin"], stdin: "pw-qa1\n")
    let leased = try sandbox.run(["lease", "qa1@corp2", "--", "true"])
    #expect(leased.status == 0, "\(leased)")
    #expect(try world.redis.cli(["EXISTS", "accounts:lease:corp2:qa1:fence"]) == "1\n", "leased through Redis")
    #expect(try sandbox.invariantViolations().isEmpty)
  }
}

extension RedisAuthTests {
  /// A password for a Redis that asks for one.
  static func newPassword() -> String { "pw-" + UUID().uuidString.replacingOccurrences(of: "-", with: "") }
}

extension Fixture {
  /// `backend set corp lease_store=URL --secret-stdin lease_store_password`, with the Redis's
  /// password (or `password`) on stdin.
  @discardableResult
  func useRedis(backend: String = "corp", url: String? = nil, password given: String? = nil) throws -> ProcessResult {
    try sandbox.run(
      ["backend", "set", backend, "lease_store=\(url ?? redis.tcpURL())", "--secret-stdin", "lease_store_password"],
      stdin: (given ?? redisPassword!) + "\n")
  }
}
