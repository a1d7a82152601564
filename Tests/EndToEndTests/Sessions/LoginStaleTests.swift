import Foundation
import TestSupport
import Testing

/// `accounts login --stale` with the built binary, a real keyring and the test
/// backend: which sessions are logged in again, which are left alone or skipped, how many
/// logins are in flight, and what a failure does to the rest and to the exit status.
@Suite(.serialized, .blocking) struct LoginStaleTests {
  static let pool = (1...5).map { "qa\($0)" }

  @Test func missingExpiredAndEndingSessionsAreLoggedInFreshOnesLeftAloneAndNoPasswordSkipped() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    try world.sandbox.ok(["login", "qa1@corp"])
    try world.sandbox.ok(["login", "old@brief"])
    #expect(waitUntil(seconds: 30) { (try? world.tokenState("old@brief")) == "expired" }, "old's second passes")
    _ = try world.loginsSeen()
    _ = try world.loginsSeen(world.brief)

    let (result, entries) = try world.stale(["qa1", "qa2", "nopw", "old"])
    #expect(result.status == 0, "\(result)")
    #expect(entries.keys.sorted() == ["nopw@corp", "old@brief", "qa1@corp", "qa2@corp"], "\(result)")
    #expect(entries["qa1@corp"]?["action"] as? String == "fresh", "an hour left: left alone")
    #expect(entries["qa1@corp"]?["expires_at"] is String)
    #expect(entries["qa2@corp"]?["action"] as? String == "logged_in", "no session: logged in")
    #expect(entries["qa2@corp"]?["expires_at"] is String)
    #expect(entries["old@brief"]?["action"] as? String == "logged_in", "expired: logged in")
    #expect(entries["nopw@corp"]?["action"] as? String == "skipped", "nothing remembered: skipped")
    for entry in entries.values {
      #expect(entry.keys.sorted() == ["account", "action", "error", "expires_at", "reason"], "\(entry)")
    }
    #expect(entries["nopw@corp"]?["reason"] as? String == "no remembered password")
    #expect(entries.filter { $0.key != "nopw@corp" }.values.allSatisfy { $0["reason"] is NSNull })
    #expect(entries.values.allSatisfy { $0["error"] is NSNull })
    #expect(try world.loginsSeen() == ["qa2"], "qa1 was not contacted, nopw was not tried")
    #expect(try world.loginsSeen(world.brief) == ["old"])
    #expect(result.standardError.contains("nopw@corp: skipped: no remembered password"), "\(result)")
    #expect(result.standardError.contains("logged in 2, fresh 1, skipped 1, failed 0"), "\(result)")
    #expect(try world.tokenState("qa2@corp") == "valid")
    #expect(try world.tokenState("nopw@corp") == "none")

    // qa1's hour ends within 2h, not within the default 10 minutes.
    let again = try world.sandbox.run(["login", "--stale", "qa1"])
    #expect(again.status == 0 && again.standardError.contains("qa1@corp: fresh until"), "\(again)")
    #expect(try world.loginsSeen() == [])
    let within = try world.sandbox.run(["login", "--stale", "qa1", "--within", "2h"])
    #expect(within.status == 0 && within.standardError.contains("qa1@corp: logged in until"), "\(within)")
    #expect(try world.loginsSeen() == ["qa1"])
    #expect(try world.sandbox.invariantViolations().isEmpty)
  }

  @Test func aRejectedPasswordFailsWithExit4AndTheOthersAreStillLoggedIn() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    try world.backend.control("password", ["name": "qa3", "password": "changed-elsewhere"])
    let (result, entries) = try world.stale(["--tag", "qa"])
    #expect(result.status == 4, "\(result)")
    #expect(entries["qa3@corp"]?["action"] as? String == "failed", "\(result)")
    #expect((entries["qa3@corp"]?["error"] as? String)?.isEmpty == false, "\(result)")
    for user in ["qa1", "qa2", "qa4", "qa5"] {
      #expect(entries["\(user)@corp"]?["action"] as? String == "logged_in", "\(user): \(result)")
    }
    #expect(entries["nopw@corp"]?["action"] as? String == "skipped")
    #expect(entries["old@brief"] == nil, "not tagged qa")
    #expect(try world.loginsSeen() == ["qa1", "qa2", "qa3", "qa4", "qa5"])
    #expect(result.standardError.contains("logged in 4, fresh 0, skipped 1, failed 1"), "\(result)")
    #expect(try world.remembered("qa3@corp") == false, "SPEC §4: a rejected remembered password is forgotten")
    #expect(!result.standardError.contains("pw-qa") && !result.standardOutput.contains("pw-qa"))
    #expect(try world.sandbox.invariantViolations().isEmpty)
  }

  /// A backend that cannot be reached: exit 8, each account failed, the one on the other
  /// backend still logged in.
  @Test func anUnreachableBackendFailsWithExit8() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    world.backend.stop()
    let (result, entries) = try world.stale(["qa1", "old"])
    #expect(result.status == 8, "\(result)")
    #expect(entries["qa1@corp"]?["action"] as? String == "failed", "\(result)")
    #expect(entries["old@brief"]?["action"] as? String == "logged_in", "\(result)")
    #expect(try world.tokenState("qa1@corp") == "none")
  }

  /// The login hooks run for each account logged in, not for those left alone or skipped.
  @Test func theLoginHooksRunForEachAccountLoggedIn() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    let ran = world.sandbox.keyring.root + "/ran"
    try world.sandbox.ok(["hook", "add", "login", "echo \"$ACCOUNTS_ACCOUNT\" >> '\(ran)'"])
    try world.sandbox.ok(["login", "qa1@corp", "--no-hooks"])
    let result = try world.sandbox.run(["login", "--stale", "qa1", "qa2", "nopw"])
    #expect(result.status == 0, "\(result)")
    let lines = (try? String(contentsOfFile: ran, encoding: .utf8))?.split(separator: "\n").map(String.init)
    #expect(lines == ["qa2@corp"], "\(result)")
  }

  @Test func jobsBoundsTheLoginsInFlight() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    try world.backend.delay(seconds: 0.5)
    try world.backend.resetConcurrency()
    let two = try world.sandbox.run(["login", "--stale", "--tag", "qa", "--jobs", "2"])
    #expect(two.status == 0, "\(two)")
    #expect(try world.backend.concurrency().max == 2, "five logins, two at a time")
    #expect(try world.loginsSeen() == Self.pool)

    // The default is 4: with every session missing again, four of the five at once.
    for user in Self.pool { try world.sandbox.ok(["logout", "\(user)@corp"]) }
    try world.backend.resetConcurrency()
    let four = try world.sandbox.run(["login", "--stale", "--tag", "qa"])
    #expect(four.status == 0, "\(four)")
    #expect(try world.backend.concurrency().max == 4)
  }

  /// A login of another command that ends while `login --stale` waits for the account's lock
  /// leaves nothing stale: a second login would take that command's session over.
  @Test func aSessionLoggedInWhileWaitingForTheLockIsLeftAlone() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    try world.backend.delay(seconds: 10)
    let other = try BackgroundAccounts(world.sandbox, ["login", "qa1@corp"])
    #expect(waitUntil(seconds: 30) { ((try? world.backend.concurrency().current) ?? 0) > 0 }, "logging in")
    let stale = try BackgroundAccounts(world.sandbox, ["login", "--stale", "qa1", "--json"])
    try stale.waitUntilWaitingFor(lockPath: world.sandbox.indexPath + ".sessions.lock")
    try world.backend.delay(seconds: 0)
    let first = try other.finish()
    #expect(first.status == 0, "\(first)")
    let result = try stale.finish()
    #expect(result.status == 0, "\(result)")
    let entries = (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [[String: Any]]
    #expect(entries?.first?["action"] as? String == "fresh", "\(result)")
    #expect(try world.loginsSeen() == ["qa1"], "one login only")
  }

  @Test func badRequestsAreUsageErrorsThatNameTheFix() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    let cases: [([String], String)] = [
      (["login", "--stale", "--remember"], "--remember is for one login"),
      (["login", "--stale", "--auto"], "--auto is for one login"),
      (["login", "--stale", "--password-stdin"], "--password-stdin is for one login"),
      (["login", "--tag", "qa"], "--tag is an option of `accounts login --stale`"),
      (["login", "qa1", "--within", "5m"], "--within is an option of `accounts login --stale`"),
      (["login", "qa1", "qa2"], "login logs in one account"),
      (["login", "--stale", "qa1", "--tag", "qa"], "not both"),
      (["login", "--stale", "--within", "soon"], "--within soon is not a duration"),
      (["login", "--stale", "--jobs", "0"], "--jobs '0' is not a number from 1 to 64"),
      (["login", "--stale", "--jobs", "65"], "--jobs '65' is not a number from 1 to 64"),
    ]
    for (arguments, message) in cases {
      let result = try world.sandbox.run(arguments, stdin: "")
      #expect(result.status == 2, "\(arguments): \(result)")
      #expect(result.standardError.contains(message), "\(arguments): \(result)")
    }
    #expect(try world.loginsSeen() == [], "nothing was tried")
  }
}

/// What `login --stale` does when every login on a backend fails the same way.
@Suite(.serialized, .blocking) struct LoginStaleBackendTests {
  /// One wrong backend setting (a password encoding the backend does not use) rejects every
  /// remembered password: the first login on the backend goes alone, its rejection forgets
  /// that one password (SPEC §4), and the backend's other accounts are not tried, so their
  /// passwords stay. Fixed, a second run logs them in.
  @Test func aBackendThatRejectsItsFirstLoginIsNotTriedFurtherAndKeepsTheOtherPasswords() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    try world.sandbox.ok(["backend", "set", "corp", "encoding=md5"])
    let (result, entries) = try world.stale(["--tag", "qa"])
    #expect(result.status == 4, "\(result)")
    #expect(try world.loginsSeen() == ["qa1"], "only the first login was sent: \(result)")
    #expect(entries["qa1@corp"]?["action"] as? String == "failed")
    for user in ["qa2", "qa3", "qa4", "qa5"] {
      let error = entries["\(user)@corp"]?["error"] as? String ?? ""
      #expect(error.hasPrefix("not tried: the remembered password of qa1@corp was rejected"), "\(user): \(result)")
      #expect(try world.remembered("\(user)@corp") == true, "\(user)'s password is kept")
    }
    #expect(try world.remembered("qa1@corp") == false, "SPEC §4: the rejected one is forgotten")
    try world.sandbox.ok(["backend", "set", "corp", "--unset", "encoding"])
    let (again, second) = try world.stale(["--tag", "qa"])
    #expect(again.status == 0, "\(again)")
    for user in ["qa2", "qa3", "qa4", "qa5"] {
      #expect(second["\(user)@corp"]?["action"] as? String == "logged_in", "\(user): \(again)")
    }
    #expect(second["qa1@corp"]?["action"] as? String == "skipped")
    #expect(try world.sandbox.invariantViolations().isEmpty)
  }

  /// One line per account on stderr, then the summary: no "using the remembered password"
  /// lines, and a failure does not name its account twice.
  @Test func itSaysOneLinePerAccountAndTheSummary() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    try world.backend.control("password", ["name": "qa3", "password": "changed-elsewhere"])
    let result = try world.sandbox.run(["login", "--stale", "--tag", "qa"])
    #expect(result.status == 4, "\(result)")
    let lines = result.standardError.split(separator: "\n").map(String.init)
    #expect(lines.count == 7, "6 accounts and the summary: \(result)")
    #expect(lines.last == "logged in 4, fresh 0, skipped 1, failed 1", "\(result)")
    let qa3 = lines.first { $0.hasPrefix("qa3@corp: failed: ") } ?? ""
    #expect(!qa3.dropFirst("qa3@corp: failed: ".count).contains("qa3@corp:"), "\(qa3)")
  }

  /// Each account's line goes out as its login ends, into a pipe too: with corp's server
  /// stopped (SIGSTOP), old@brief's line arrives while qa1@corp's login still waits for it.
  @Test func eachAccountsLineArrivesAsItsLoginEndsAlsoIntoAPipe() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    world.backend.pause()
    defer { world.backend.resume() }
    let running = try BackgroundAccounts(world.sandbox, ["login", "--stale", "qa1", "old", "--timeout", "20"])
    // Bounded by the command's own --timeout: it ends then, and its stderr with it.
    var early = ""
    while !early.contains("old@brief: logged in") {
      let chunk = readSome(from: running.process.errorDescriptor)
      if chunk.isEmpty { break }
      early += String(decoding: chunk, as: UTF8.self)
    }
    #expect(early.contains("old@brief: logged in until"), "\(early)")
    #expect(!early.contains("qa1@corp"), "qa1's login has not ended: \(early)")
    #expect(running.process.isRunning, "the line came before the last login ended: \(early)")
    world.backend.resume()
    let result = try running.finish()
    let all = early + result.standardError
    #expect(result.status == 0, "\(all)")
    #expect(all.contains("qa1@corp: logged in until"), "\(all)")
    #expect(all.hasSuffix("logged in 2, fresh 0, skipped 0, failed 0\n"), "\(all)")
    #expect(!all.contains("logging in") && !all.contains("\u{1B}"), "no progress line into a pipe: \(all)")
  }

  /// `--quiet` drops the status lines (each fresh, logged in or skipped account, the summary),
  /// never a failure's line.
  @Test func quietKeepsOnlyTheFailuresLines() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    try world.backend.control("password", ["name": "qa3", "password": "changed-elsewhere"])
    let result = try world.sandbox.run(["-q", "login", "--stale", "qa2", "qa3", "nopw"])
    #expect(result.status == 4, "\(result)")
    let lines = result.standardError.split(separator: "\n").map(String.init)
    #expect(lines.count == 1 && lines[0].hasPrefix("qa3@corp: failed: "), "\(result)")
    #expect(try world.tokenState("qa2@corp") == "valid")
  }
}

extension Fixture {
  /// LoginStaleTests.pool (qa1...qa5: remembered, tag qa) and nopw (tag qa, nothing remembered)
  /// on corp, whose tokens last an hour; old (remembered) on brief, a second test backend whose
  /// tokens last a second.
  static func stalePool() throws -> Fixture {
    let world = try Fixture()
      .serving(users: LoginStaleTests.pool, tokenLifetime: 3600, arguments: ["--user", "nopw:nopw0"])
      .serving(tokenLifetime: 1, arguments: ["--user", "old:pw-old"])
      .addingServedBackend("corp").addingServedBackend("brief", server: 1)
    for user in LoginStaleTests.pool {
      try world.saving("\(user)@corp", password: Fixture.password(of: user), tags: ["qa"])
    }
    return try world.saving("nopw@corp", tags: ["qa"]).saving("old@brief", password: "pw-old")
  }

  /// The test backend of backend brief.
  var brief: TestBackend { servers[1] }

  /// The users corp saw log in since the last call, then forgets them.
  func loginsSeen(_ server: TestBackend? = nil) throws -> [String] {
    let server = server ?? backend
    let requests = try server.requests().filter { ($0["path"] as? String)?.hasSuffix("/login") == true }
    try server.control("log/clear")
    return requests.compactMap { ($0["form"] as? [String: Any])?["username"] as? String }.sorted()
  }

  /// `list --json`'s token state of `account` ("valid", "expired", "none").
  func tokenState(_ account: String) throws -> String? {
    let listed = try sandbox.json(["list", "--json"]) as? [[String: Any]] ?? []
    return listed.first { $0["account"] as? String == account }.flatMap {
      ($0["token"] as? [String: Any])?["state"] as? String
    }
  }

  /// `login --stale ARGUMENTS --json`: the result, and each account's object by name.
  func stale(_ arguments: [String]) throws -> (ProcessResult, [String: [String: Any]]) {
    let result = try sandbox.run(["login", "--stale", "--json"] + arguments)
    let array = (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [[String: Any]] ?? []
    return (result, Dictionary(uniqueKeysWithValues: array.map { ($0["account"] as? String ?? "", $0) }))
  }
}
