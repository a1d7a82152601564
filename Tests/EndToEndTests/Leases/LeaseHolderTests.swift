import Foundation
import TestSupport
import Testing

/// SPEC §4's lease rows with the built binary: nobody but its holder logs a leased account in
/// or out, and a holder whose lease was lost stops at once and leaves the account to the new
/// holder. The test backend's single sign-on is the witness: each login there ends the
/// account's other sessions.
@Suite(.blocking) struct LeaseHolderTests {
  /// A lease command's CMD: every 0.25 s, `rounds` times, proves the token in
  /// $ACCOUNTS_TOKEN_FILE with the backend ("$1") and appends ok or bad to "$0"; then creates
  /// "$0.done" and waits (60 s at most) for "$2".
  static let witness = """
    i=0
    while [ $i -lt "$3" ]; do
      t=$(cat "$ACCOUNTS_TOKEN_FILE")
      if curl -sS --max-time 5 -H "AuthorisedToken: $t" "$1/plain/plain/me" | grep -q '"ok": true'; then
        echo ok >> "$0"
      else
        echo bad >> "$0"
      fi
      sleep 0.25; i=$((i+1))
    done
    : > "$0.done"
    i=0; while [ ! -e "$2" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
    """

  static func lines(_ path: String) -> [String] {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// Machine A holds qa1 with --refresh; its keeper is stopped past the ttl, so the lease is
  /// lost, and machine B leases qa1. A is told, and neither its refresher nor its keeper takes
  /// anything back: B's session stays valid throughout, and the backend sees two logins, not
  /// a loop. Then A, no longer a holder, may not log qa1 in or out (login --stale skips it)
  /// while B holds it, unless forced.
  @Test func aHolderThatLostItsLeaseLeavesTheAccountToTheNewHolder() throws {
    let world = try Fixture.sharingRedis(users: ["qa1"])
    defer { world.close() }
    let rootA = world.a.keyring.root
    let rootB = world.b.keyring.root
    let a = try world.a.holding(
      ["qa1", "--ttl", "2s", "--refresh", "--refresh-check", "1s"], ready: rootA + "/ready", release: rootA + "/go")
    defer { _ = FileManager.default.createFile(atPath: rootA + "/go", contents: nil) }
    let keeper = try #require(a.keeper())
    kill(keeper, SIGSTOP)
    var stopped = true
    defer { if stopped { kill(keeper, SIGCONT) } }
    #expect(waitUntil(seconds: 10) { (try? world.leaseKeys()) == [] }, "A's lease expired without its keeper")

    let seen = rootB + "/seen"
    let b = try Holder(
      world.b,
      ["lease", "qa1", "--refresh", "--refresh-check", "1s", "--", "/bin/sh", "-c", Self.witness, seen,
       world.backend.url, rootB + "/go", "24"])
    defer { _ = FileManager.default.createFile(atPath: rootB + "/go", contents: nil) }
    #expect(waitUntil(seconds: 20) { Self.lines(seen).count >= 4 }, "B's command runs: \(b.standardError)")
    kill(keeper, SIGCONT)
    stopped = false
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: seen + ".done") }, "\(b.standardError)")

    let witnessed = Self.lines(seen)
    #expect(witnessed.count == 24 && witnessed.allSatisfy { $0 == "ok" }, "B's session valid throughout: \(witnessed)")
    #expect(try world.backend.logins() == 2, "A's login and B's, no ping-pong")
    #expect(
      waitUntil(seconds: 10) { a.standardError.contains("accounts: --refresh: qa1@corp: the lease of this command was lost") },
      "A's refresher says so: \(a.standardError)")
    #expect(a.standardError.contains("its token file is no longer renewed"), "\(a.standardError)")
    #expect(
      waitUntil(seconds: 10) { a.standardError.contains("accounts: lease: lost the lease of accounts:lease:corp:qa1") },
      "A's keeper says so too: \(a.standardError)")
    #expect(!b.standardError.contains("--refresh"), "B's refresher never had to log in again: \(b.standardError)")

    // A is no holder now; B is.
    let stale = try world.a.run(["login", "--stale", "--tag", "qa", "--within", "2h", "--json"])
    #expect(stale.status == 0, "\(stale)")
    #expect(stale.standardError.contains("qa1@corp: skipped: leased by "), "\(stale.standardError)")
    let entries = try #require(try JSONSerialization.jsonObject(with: Data(stale.standardOutput.utf8)) as? [[String: Any]])
    #expect(entries.first?["action"] as? String == "skipped", "\(entries)")
    #expect((entries.first?["reason"] as? String)?.hasPrefix("leased by ") == true, "\(entries)")
    let login = try world.a.run(["login", "qa1"])
    #expect(login.status == 1, "\(login)")
    #expect(login.standardError.contains("qa1@corp is leased by "), "names the holder: \(login.standardError)")
    #expect(login.standardError.contains(":\(b.pid) since "), "\(login.standardError)")
    #expect(login.standardError.contains("add --force"), "\(login.standardError)")
    let logout = try world.a.run(["logout", "qa1"])
    #expect(logout.status == 1 && logout.standardError.contains("qa1@corp is leased by "), "\(logout)")
    #expect(try world.backend.logins() == 2, "none of them reached the backend")
    let token = try String(contentsOfFile: try #require(Self.tokenFile(b)), encoding: .utf8)
    let check = try runProcess(
      "/usr/bin/curl", ["-sS", "-H", "AuthorisedToken: \(token)", "\(world.backend.url)/plain/plain/me"],
      environment: [:], timeout: 10)
    #expect(check.standardOutput.contains("\"ok\": true"), "B's session lives on: \(check)")

    let forced = try world.a.run(["login", "qa1", "--force"])
    #expect(forced.status == 0, "--force logs it in anyway: \(forced)")
    // A's forced login ends B's session at the backend; B's refresher, whose lease is still
    // held, may log it in again once at its next check (a take-over under its own lease).
    let logins = try world.backend.logins()
    #expect(logins == 3 || logins == 4, "A's forced login reached the backend: \(logins)")
  }

  /// The token file of the command `holder` became (`accounts lease` execs it).
  static func tokenFile(_ holder: Holder) -> String? {
    let environment = FileManager.default.contents(atPath: "/proc/\(holder.pid)/environ") ?? Data()
    let prefix = "ACCOUNTS_TOKEN_FILE="
    return environment.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      .first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
  }

  /// On one machine, while `accounts lease qa2 -- CMD` runs: the README's warm-up skips qa2 and
  /// logs the rest in, and login and logout of qa2 are refused, naming the holder, unless forced.
  @Test func aLocalLeaseKeepsOtherCommandsOffItsAccount() throws {
    let world = try Fixture.pool(["qa1", "qa2"], tokenLifetime: 3600)
    defer { world.close() }
    let machine = world.sandbox
    let root = world.root
    try machine.ok(["login", "qa2"])
    let holder = try machine.holding(["qa2"], ready: root + "/ready", release: root + "/go")
    defer { _ = FileManager.default.createFile(atPath: root + "/go", contents: nil) }
    let before = try world.backend.logins()

    let stale = try machine.run(["login", "--stale", "--tag", "qa", "--within", "2h"])
    #expect(stale.status == 0, "\(stale)")
    #expect(stale.standardError.contains("qa2@corp: skipped: leased by "), "\(stale.standardError)")
    #expect(stale.standardError.contains(":\(holder.pid) since "), "\(stale.standardError)")
    #expect(stale.standardError.contains("qa1@corp: logged in"), "\(stale.standardError)")
    #expect(stale.standardError.contains("logged in 1, fresh 0, skipped 1, failed 0"), "\(stale.standardError)")
    #expect(try world.backend.logins() == before + 1, "qa1's login only")

    for command in [["login", "qa2"], ["logout", "qa2"]] {
      let refused = try machine.run(command)
      #expect(refused.status == 1, "\(refused)")
      #expect(refused.standardError.contains("qa2@corp is leased by "), "\(refused.standardError)")
      #expect(refused.standardError.contains("wait for its command to end, or add --force"), "\(refused.standardError)")
    }
    #expect(try world.backend.logins() == before + 1)
    let listed = try #require(try machine.json(["list", "--json"]) as? [[String: Any]])
    let qa2 = listed.first { $0["user"] as? String == "qa2" }
    #expect((qa2?["token"] as? [String: Any])?["state"] as? String == "valid", "the holder's session is untouched")

    try machine.ok(["logout", "qa2", "--force"])
    _ = FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish() == 0)
    try machine.ok(["login", "qa2"])
  }

  /// The command a lease runs is its holder (ACCOUNTS_LEASE_ID and ACCOUNTS_LEASED say so):
  /// its own `accounts request` logs the account in again after an expiry, as SPEC §3 says.
  @Test func theCommandOfALeaseIsItsHolder() throws {
    let world = try Fixture.pool(["qa1"], tokenLifetime: 3600)
    defer { world.close() }
    try world.sandbox.ok(["login", "qa1"])
    let script = """
      curl -sS --max-time 10 -X POST --data-binary '{"name": "qa1"}' "$0/control/expire" > /dev/null
      exec "$1" request qa1 GET me
      """
    let run = try world.sandbox.run(["lease", "qa1", "--", "/bin/sh", "-c", script, world.backend.url, PackagePaths.accounts])
    #expect(run.status == 0, "the holder's own request: \(run)")
    #expect(run.standardError.contains("logging in again with the remembered password"), "\(run.standardError)")
    #expect(!run.standardError.contains("is leased by"), "\(run.standardError)")
  }

  /// A detached lease's worker is its holder when it is given the lease's id, as the README's
  /// recipe does; without it, it is anyone else.
  @Test func aDetachedLeasesWorkerIsItsHolderWithItsId() throws {
    let world = try Fixture.pool(["qa1"], tokenLifetime: 3600)
    defer { world.close() }
    let lease = try #require(try world.sandbox.json(["lease", "qa1", "--ttl", "30m", "--json"]) as? [String: Any])
    let account = try #require((lease["accounts"] as? [String])?.first)
    let id = try #require(lease["lease"] as? String)

    try world.backend.control("expire", ["name": "qa1"])
    let stranger = try world.sandbox.run(["request", "GET", "me"], environment: ["ACCOUNTS_ACCOUNT": account])
    #expect(stranger.status == 1 && stranger.standardError.contains("is leased by "), "\(stranger)")
    #expect(stranger.standardError.contains("`accounts release \(id)` ends it"), "\(stranger.standardError)")

    let worker = ["ACCOUNTS_ACCOUNT": account, "ACCOUNTS_LEASE_ID": id]
    let request = try world.sandbox.run(["request", "GET", "me"], environment: worker)
    #expect(request.status == 0, "the worker's request logs in again: \(request)")
    try world.backend.control("expire", ["name": "qa1"])
    let stale = try world.sandbox.run(["login", "--stale", account, "--within", "2h"], environment: worker)
    #expect(stale.status == 0 && stale.standardError.contains("qa1@corp: logged in until"), "\(stale)")
    let refresh = try world.sandbox.run(["lease", "qa1", "--ttl", "30m", "--refresh"])
    #expect(refresh.status == 2 && refresh.standardError.contains("ACCOUNTS_LEASE_ID=ID accounts login --stale"), "\(refresh)")
    let wrong = try world.sandbox.run(["token", "qa1"], environment: ["ACCOUNTS_LEASE_ID": "not-an-id"])
    #expect(wrong.status == 2 && wrong.standardError.contains("ACCOUNTS_LEASE_ID"), "\(wrong)")
  }

  /// A login another command began a moment before `lease` took the account (its LOGIN slow to
  /// answer) lands first: the lease waits for it and hands on its session, which nothing ends
  /// afterwards (a backend without a session check, whose stored session is trusted).
  @Test func aLoginInFlightWhenTheLeaseIsTakenLandsBeforeItsSessionIsHandedOn() throws {
    let world = try Fixture.pool(["qa1"], tokenLifetime: 3600)
    defer { world.close() }
    try world.sandbox.ok(["backend", "set", "corp", "--unset", "check_path"])
    try world.sandbox.ok(["login", "qa1"])
    try world.backend.delay(seconds: 2)
    let login = try Holder(world.sandbox, ["login", "qa1"])
    // Its LOGIN has reached the backend, which holds it for 2 s.
    #expect(waitUntil(seconds: 10) { (try? world.backend.concurrency().current) == 1 })
    let seen = world.root + "/seen"
    let script = "curl -sS --max-time 10 -H \"AuthorisedToken: $ACCOUNTS_TOKEN\" \"$1/plain/plain/me\" > \"$0\""
    let lease = try world.sandbox.run(["lease", "qa1", "--", "/bin/sh", "-c", script, seen, world.backend.url])
    #expect(lease.status == 0, "\(lease)")
    #expect(try login.finish() == 0)
    try world.backend.delay(seconds: 0)
    let reply = (try? String(contentsOfFile: seen, encoding: .utf8)) ?? ""
    #expect(reply.contains("\"ok\": true"), "the session handed on is the one the login in flight made: \(reply)")
  }
}
