import Foundation
import TestSupport
import Testing

/// `lease`, `release` and `leases` with the built binary, a real keyring and the test backend,
/// whose single sign-on is the witness: a second login of an account takes the first one's
/// session over, so a worker that ever shared its account would see "signed in elsewhere".
@Suite(.blocking) struct LeaseTests {
  @Test func aHeldLeaseExcludesOthersUntilItsCommandEnds() throws {
    let world = try Fixture.pool(["qa1"])
    defer { world.close() }
    let root = world.sandbox.keyring.root
    let holder = try world.holding(["--tag", "qa"], ready: root + "/ready", release: root + "/go")
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: root + "/ready") })
    let first = try String(contentsOfFile: root + "/ready", encoding: .utf8)
    #expect(first.hasPrefix("qa1@corp "), "\(first)")

    let busy = try world.sandbox.run(["lease", "--tag", "qa", "--", "true"])
    #expect(busy.status == 10, "\(busy)")
    #expect(busy.standardError.contains("no account free: qa1@corp held by "), "\(busy.standardError)")
    #expect(busy.standardError.split(separator: "\n").count == 1)
    #expect(try world.leaseRows().map(\.account) == ["qa1@corp"])

    FileManager.default.createFile(atPath: root + "/go", contents: nil)
    #expect(try holder.finish().status == 0)
    #expect(try world.leaseRows().isEmpty, "the lease ended with its command")
    let next = try world.sandbox.ok(["lease", "--tag", "qa", "--", "/bin/sh", "-c", "echo \"$ACCOUNTS_LEASE_FENCE\""])
    let fence = Int(first.split(separator: " ").last!.trimmingCharacters(in: .whitespacesAndNewlines))!
    let nextFence = try #require(Int(next.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(nextFence > fence, "the fence grows")
  }

  /// This machine's lease directory cleared (the runtime directory is, at logout of the last
  /// session and at reboot) loses every counter: the next fence is still larger than any
  /// earlier one (at least the clock in milliseconds), where it was 1 again.
  @Test func aFenceGrowsAfterTheLeaseDirectoryWasCleared() throws {
    let world = try Fixture.pool(["qa1"])
    defer { world.close() }
    let started = Int(Date().timeIntervalSince1970) * 1000
    let fence = ["lease", "qa1", "--", "/bin/sh", "-c", "echo \"$ACCOUNTS_LEASE_FENCE\""]
    let first = try #require(Int(try world.sandbox.ok(fence).standardOutput.trimmingCharacters(in: .newlines)))
    #expect(first >= started - 1000, "from the clock, not from 1: \(first)")
    try FileManager.default.removeItem(atPath: world.sandbox.environment["XDG_RUNTIME_DIR"]! + "/accounts/leases")
    let second = try #require(Int(try world.sandbox.ok(fence).standardOutput.trimmingCharacters(in: .newlines)))
    #expect(second > first, "\(first) then \(second)")
  }

  @Test func killingTheHolderFreesTheAccountAtOnce() throws {
    let world = try Fixture.pool(["qa1"])
    defer { world.close() }
    let root = world.sandbox.keyring.root
    let holder = try world.holding(["qa1"], ready: root + "/ready", release: root + "/never")
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: root + "/ready") })
    holder.kill()  // SIGKILL of the command the lease became
    _ = try? holder.finish()
    let after = try world.sandbox.run(["lease", "qa1", "--", "true"])
    #expect(after.status == 0, "no stale lock after SIGKILL: \(after)")
  }

  @Test func aDetachedLeaseLastsUntilReleasedOrExpired() throws {
    let world = try Fixture.pool(["qa1", "qa2"])
    defer { world.close() }
    let taken = try #require(try world.sandbox.json(["lease", "--tag", "qa", "--count", "2", "--ttl", "30s", "--json"]) as? [String: Any])
    let id = try #require(taken["lease"] as? String)
    #expect(taken["accounts"] as? [String] == ["qa1@corp", "qa2@corp"])
    #expect(taken["expires_at"] is String)
    #expect(try world.sandbox.run(["lease", "--tag", "qa", "--", "true"]).status == 10, "all or none: both held")

    // list marks them; remove and clear refuse them, naming the holder, unless --force.
    let listed = try #require(try world.sandbox.json(["list", "--json"]) as? [[String: Any]])
    let marks = listed.compactMap { ($0["lease"] as? [String: Any])?["lease"] as? String }
    #expect(marks == [id, id], "\(listed)")
    #expect(try world.sandbox.ok(["list"]).standardOutput.contains("LEASED"))
    let remove = try world.sandbox.run(["remove", "qa1"])
    #expect(remove.status == 1 && remove.standardError.contains("qa1@corp is leased by "), "\(remove)")
    #expect(remove.standardError.contains("accounts release \(id)"), "\(remove.standardError)")
    #expect(try world.sandbox.run(["clear", "--yes"]).status == 1)
    #expect(try world.sandbox.json(["list", "--json"]) as? [[String: Any]] != nil)
    #expect((try world.sandbox.json(["list", "--json"]) as? [[String: Any]])?.count == 2, "nothing forgotten")
    try world.sandbox.ok(["remove", "qa2", "--force"])
    #expect((try world.sandbox.json(["list", "--json"]) as? [[String: Any]])?.count == 1)

    let unknown = try world.sandbox.run(["release", "not-a-lease"])
    #expect(unknown.status == 1 && unknown.standardError.contains("no lease"), "\(unknown)")
    #expect(try world.leaseRows().count == 2, "a failed release frees nothing")
    try world.sandbox.ok(["release", id])
    #expect(try world.leaseRows().isEmpty)

    try world.sandbox.ok(["lease", "qa1", "--ttl", "300ms"])
    #expect(waitUntil(seconds: 10) { (try? world.leaseRows().isEmpty) == true }, "expired")
    try world.sandbox.ok(["lease", "qa1", "--", "true"])
  }

  /// Times are kept in whole seconds, and the lease is taken somewhere within the second its
  /// `since` names: the expiry must lie a whole --ttl beyond the end of that second, or a lease
  /// taken late in a second would end up to a second early and a second holder take the account
  /// while the first still counts on it.
  @Test func aDetachedLeaseNeverEndsBeforeItsTTL() throws {
    let world = try Fixture.pool(["qa1"])
    defer { world.close() }
    let taken = try #require(try world.sandbox.json(["lease", "qa1", "--ttl", "2s", "--json"]) as? [String: Any])
    let listed = try #require(try world.sandbox.json(["leases", "--json"]) as? [[String: Any]])
    let format = ISO8601DateFormatter()
    let since = try #require(format.date(from: listed.first?["since"] as? String ?? ""))
    let expiry = try #require(format.date(from: taken["expires_at"] as? String ?? ""))
    #expect(expiry.timeIntervalSince(since) >= 3, "since \(since), expires \(expiry)")
  }

  /// A detached lease is taken held and detached only once its sessions are ready: a `lease
  /// --ttl` killed while it logs in (here: the backend slow to answer) leaves nothing behind,
  /// rather than keeping the account for its whole ttl.
  @Test func aDetachedLeaseKilledWhileLoggingInLeavesNothingHeld() throws {
    let world = try Fixture.pool(["qa1"])
    defer { world.close() }
    try world.backend.delay(seconds: 10)
    let taking = try BackgroundAccounts(world.sandbox, ["lease", "qa1", "--ttl", "10m"])
    #expect(waitUntil(seconds: 30) { ((try? world.backend.concurrency().current) ?? 0) > 0 }, "logging in")
    taking.kill()
    try world.backend.delay(seconds: 0)
    #expect(try world.leaseRows().isEmpty, "nothing left held")
    let after = try world.sandbox.run(["lease", "qa1", "--", "true"])
    #expect(after.status == 0, "\(after)")
  }

  @Test func badRequestsAreUsageErrorsAndTakeNothing() throws {
    let world = try Fixture.pool(["qa1"])
    defer { world.close() }
    let cases: [([String], Int32, String)] = [
      (["lease", "--tag", "qa"], 2, "a lease without a command to run needs --ttl"),
      (["lease", "--", "true"], 2, "lease from which accounts?"),
      (["lease", "qa1", "--tag", "qa", "--", "true"], 2, "not both"),
      (["lease", "qa1", "--ttl", "soon"], 2, "--ttl soon is not a duration"),
      (["lease", "qa1", "--wait", "1d", "--", "true"], 2, "--wait 1d is not a duration"),
      (["lease", "qa1", "--count", "2", "--", "true"], 2, "cannot lease 2 of 1 account"),
      (["lease", "--tag", "nope", "--", "true"], 3, "no saved account has the tag nope"),
      (["lease", "--tag", "bad tag", "--", "true"], 2, "is not a valid tag"),
      (["lease", "qa1", "--"], 2, "needs CMD after --"),
    ]
    for (arguments, status, message) in cases {
      let result = try world.sandbox.run(arguments)
      #expect(result.status == status, "\(arguments): \(result)")
      #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
    }
    #expect(try world.leaseRows().isEmpty)
    let shared = try world.sandbox.run(["leases"], environment: ["ACCOUNTS_LEASE_STORE": "redis://127.0.0.1:1/0"])
    #expect(shared.status == 8 && shared.standardError.contains("redis://127.0.0.1:1"), "never silently local: \(shared)")
  }

  /// Eight workers over two accounts. Each logs in to the backend itself, as a test suite
  /// logs in through the application it tests, which takes over any other session of that
  /// account (the backend's single sign-on), then calls it twice with a pause between: a worker
  /// that shared its account would find its session taken over in between. (The same script
  /// run with `accounts exec` instead of `lease` fails that way for most workers.)
  @Test func concurrentWorkersNeverShareAnAccount() throws {
    let world = try Fixture.pool(["qa1", "qa2"])
    defer { world.close() }
    let script = """
      user=${ACCOUNTS_ACCOUNT%@corp}
      token=$(printf 'username=%s&password=pw-%s' "$user" "$user" \\
        | curl -sS --max-time 10 --data-binary @- "$0/plain/plain/login" \\
        | sed -n 's/.*"token": *"\\([0-9a-f]*\\)".*/\\1/p')
      [ -n "$token" ] || exit 90
      curl -sS --max-time 10 -H "AuthorisedToken:$token" "$0/plain/plain/me" | grep -q '"ok": true' || exit 91
      sleep 0.3
      curl -sS --max-time 10 -H "AuthorisedToken:$token" "$0/plain/plain/me" | grep -q '"ok": true' || exit 92
      """
    let workers = try (0..<8).map { _ in
      try BackgroundAccounts(
        world.sandbox, ["lease", "--tag", "qa", "--wait", "60s", "--", "/bin/sh", "-c", script, world.backend.url])
    }
    for worker in workers {
      let result = try worker.finish()
      #expect(result.status == 0, "\(result)")
    }
    #expect(try world.leaseRows().isEmpty)
  }
}

extension Fixture {
  /// `leases --json`, as (account, lease, fence) triples.
  func leaseRows() throws -> [(account: String, lease: String, fence: Int)] {
    let json = try #require(try sandbox.json(["leases", "--json"]) as? [[String: Any]])
    return json.map { ($0["account"] as? String ?? "", $0["lease"] as? String ?? "", $0["fence"] as? Int ?? -1) }
  }

  /// A `lease ... -- sh -c SCRIPT` in the background whose command writes its account and
  /// fence to `ready` and then waits until `release` exists (60 s at most).
  func holding(_ arguments: [String], ready: String, release: String) throws -> BackgroundAccounts {
    let script = """
      printf '%s %s\\n' "$ACCOUNTS_ACCOUNT" "$ACCOUNTS_LEASE_FENCE" > "$0.tmp" && mv "$0.tmp" "$0"
      i=0; while [ ! -e "$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
      """
    return try BackgroundAccounts(sandbox, ["lease"] + arguments + ["--", "/bin/sh", "-c", script, ready, release])
  }
}
