import Foundation
import TestSupport
import Testing

/// The session lifecycle (SPEC §3, §4) with the built binary, a real keyring and the test
/// backend on 127.0.0.1: login, switch, token, current and logout, a session that expires, is
/// taken over or whose password changed elsewhere, and status; each proved by what the backend
/// saw and what the keyring and index hold afterwards. Races between these commands are
/// SessionRaceTests'; exec and request have suites of their own.
@Suite(.serialized, .blocking) struct SessionTests {
  /// On both providers: a login replaces the token of an item another process stored.
  @Test(arguments: SecretServiceProvider.allCases)
  func loginSwitchBackAndForthAndTheTokenForScripts(_ provider: SecretServiceProvider) throws {
    let world = try Fixture.aliceBobAndCarol(provider)
    defer { world.close() }
    let sandbox = world.sandbox
    let login = try sandbox.ok(["login", "alice", "--auto"])
    #expect(login.standardError.contains("alice@corp: logged in"), "\(login)")
    #expect(try world.seen() == ["login"])
    #expect(world.slot == "alice@corp")
    let alice = try world.account("alice")
    #expect((alice["session"] as? [String: Any])?["userId"] as? String == "1001", "\(alice)")
    #expect((alice["token"] as? [String: Any])?["expires_at"] is String)

    try sandbox.ok(["login", "bob"])
    #expect(world.slot == "alice@corp", "login without --auto leaves the slot")
    let switched = try sandbox.ok(["switch", "bob"])
    #expect(switched.standardError.contains("bob@corp"), "\(switched)")
    #expect(try world.seen() == ["login"], "switch reuses bob's valid token: no network")
    #expect(world.slot == "bob@corp")
    #expect(try world.keyringToken("alice") != nil, "the demoted holder keeps its token")
    #expect(try world.account("alice")["remembered"] as? Bool == true)

    try sandbox.ok(["switch", "-"])
    #expect(world.slot == "alice@corp")
    let token = try sandbox.ok(["token"])
    #expect(token.standardOutput == (try world.keyringToken("alice")).map { $0 + "\n" }, "nothing but the token")
    #expect(token.standardError.isEmpty)
    #expect(try world.seen().isEmpty, "token trusts the local expiry")
    try sandbox.ok(["token", "--check"])
    #expect(try world.seen() == ["check"])
    #expect(try sandbox.ok(["current"]).standardOutput == "alice@corp\n")
  }

  /// On both providers: a login replaces the token of an item another process stored.
  @Test(arguments: SecretServiceProvider.allCases)
  func expiryLogsInAgainOnceWithTheRememberedPassword(_ provider: SecretServiceProvider) throws {
    let world = try Fixture.aliceBobAndCarol(provider)
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["switch", "alice"])
    let before = try world.keyringToken("alice")
    _ = try world.seen()
    try world.backend.control("expire", ["name": "alice"])
    let body = try sandbox.ok(["request", "GET", "me"])
    #expect(try world.seen() == ["me", "login", "me"], "the request is retried once after the re-login")
    #expect(body.standardOutput.contains("\"path\""), "\(body)")
    #expect(try world.keyringToken("alice") != before)
    #expect(world.slot == "alice@corp")

    try world.backend.control("expire", ["name": "alice"])
    try sandbox.ok(["current", "--check"])
    #expect(try world.seen() == ["check", "login"])
  }

  @Test func expiryWithoutARememberedPasswordReleasesTheSlotWithExit5() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["switch", "carol", "--password-stdin"], stdin: "secret3\n")
    _ = try world.seen()
    try world.backend.control("expire", ["name": "carol"])
    let checked = try sandbox.run(["current", "--check"])
    #expect(checked.status == 5, "\(checked)")
    #expect(checked.standardError.contains("login required"), "\(checked)")
    #expect(try world.seen() == ["check"], "nothing to log in with")
    #expect(world.slot == nil)
    #expect(try world.keyringToken("carol") == nil)
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func aTakeOverNeverLogsInAgain() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["switch", "alice"])
    try world.backend.control("takeover", ["name": "alice", "family": "plain"])
    _ = try world.seen()
    let result = try sandbox.run(["request", "GET", "me"])
    #expect(result.status == 5)
    #expect(result.standardError.contains("signed in elsewhere"), "\(result)")
    #expect(try world.seen() == ["me"], "no login request after a take-over")
    #expect(world.slot == nil)
    #expect(try world.keyringToken("alice") == nil)
    #expect(try world.account("alice")["remembered"] as? Bool == true)
  }

  /// On both providers: a login replaces the token of an item another process stored.
  @Test(arguments: SecretServiceProvider.allCases)
  func aPasswordChangedElsewhereClearsWhatIsRemembered(_ provider: SecretServiceProvider) throws {
    let world = try Fixture.aliceBobAndCarol(provider)
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["switch", "alice"])
    try world.backend.control("password", ["name": "alice", "password": "changed"])
    let result = try sandbox.run(["token", "--check"])
    #expect(result.status == 4, "\(result)")
    let alice = try world.account("alice")
    #expect(alice["remembered"] as? Bool == false)
    #expect(alice["token"] == nil || alice["token"] is NSNull, "\(alice)")
    #expect(world.slot == nil)
    #expect(try world.keyringToken("alice") == nil)
    #expect(try sandbox.invariantViolations() == [])
  }

  /// The first command of a new user may be a login: nothing of accounts' own exists yet.
  @Test func aLoginOnAFreshMachineSavesTheAccount() throws {
    let world = try Fixture().serving().addingServedBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice@corp", "--remember", "--auto", "--password-stdin"], stdin: "123456\n")
    #expect(try sandbox.ok(["current"]).standardOutput == "alice@corp\n")
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func noWayToLogInIsExit3AtOnce() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let start = Date()
    let result = try world.sandbox.run(["token", "carol"])
    #expect(result.status == 3, "\(result)")
    #expect(Date().timeIntervalSince(start) < 10)
    #expect(try world.seen().isEmpty)
  }

  @Test func anUnreachableBackendChangesNothing() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["switch", "alice"])
    let index = try String(contentsOfFile: sandbox.indexPath, encoding: .utf8)
    world.backend.stop()
    let checked = try sandbox.run(["current", "--check", "--timeout", "3"])
    #expect(checked.status == 8, "\(checked)")
    #expect(try String(contentsOfFile: sandbox.indexPath, encoding: .utf8) == index)
    let logout = try sandbox.run(["logout"])
    #expect(logout.status == 0 && logout.standardError.hasPrefix("accounts: warning: "), "\(logout)")
    #expect(world.slot == nil)
    #expect(try world.keyringToken("alice") == nil)
    #expect(try world.account("alice")["remembered"] as? Bool == true, "logout keeps the password")
  }

  @Test func statusChecksEverySessionWithBoundedConcurrency() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    for index in 0..<6 {
      try world.backend.control("users", ["name": "user\(index)", "password": "pw\(index)"])
      try sandbox.ok(["login", "user\(index)", "--password-stdin"], stdin: "pw\(index)\n")
    }
    try world.backend.control("delay", ["seconds": 0.4])
    try world.backend.control("concurrency/reset")
    let start = Date()
    let status = try sandbox.ok(["status", "--jobs", "2"])
    let elapsed = Date().timeIntervalSince(start)
    let counts = try world.backend.concurrency()
    #expect(counts.max == 2, "at most --jobs in flight, and more than one: \(counts)")
    #expect(elapsed < 6 * 0.4, "concurrent: \(elapsed) s")
    let lines = status.standardOutput.split(separator: "\n")
    #expect(lines.count == 10, "a header and one line per account: \(status.standardOutput)")
    #expect(lines.contains { $0.contains("user3@corp") && $0.contains("valid") })
    #expect(lines.contains { $0.contains("carol@corp") && $0.contains("no session") })
  }

  @Test func switchBackAfterThePreviousHolderWasRemoved() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["switch", "alice"])
    try sandbox.ok(["switch", "bob"])
    try sandbox.ok(["remove", "alice"])
    let back = try sandbox.run(["switch", "-"])
    #expect(back.status == 2 || back.status == 3, "\(back)")
    #expect(back.standardError.contains("previous"), "\(back)")
    #expect(world.slot == "bob@corp")
  }
}
