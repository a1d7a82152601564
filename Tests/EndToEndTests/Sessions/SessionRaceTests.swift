import Foundation
import Glibc
import TestSupport
import Testing

/// Commands racing over the sessions of one sandbox, with the built binary, a real keyring and
/// the test backend: whatever the interleaving, one slot holder, no secret without its account,
/// and one login again for one expiry.
@Suite(.serialized, .blocking) struct SessionRaceTests {
  @Test func twentySwitchesRacingLeaveOneHolderAndBothTokens() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice"])
    try sandbox.ok(["login", "bob"])
    let aliceToken = try world.keyringToken("alice")
    let bobToken = try world.keyringToken("bob")
    let group = DispatchGroup()
    let failures = ThreadSafeList<String>()
    for index in 0..<20 {
      DispatchQueue.global().async(group: group) {
        let result = try? sandbox.run(["switch", index % 2 == 0 ? "alice" : "bob"])
        if result?.status != 0 { failures.append("\(String(describing: result))") }
      }
    }
    group.wait()
    #expect(failures.all.isEmpty, "\(failures.all)")
    #expect(world.slot == "alice@corp" || world.slot == "bob@corp")
    #expect(try world.keyringToken("alice") == aliceToken && world.keyringToken("bob") == bobToken)
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func aLoginRacingARemoveLeavesNoOrphanSecret() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    for _ in 0..<3 {
      let group = DispatchGroup()
      DispatchQueue.global().async(group: group) { _ = try? sandbox.run(["login", "alice", "--remember", "--password-stdin"], stdin: "123456\n") }
      DispatchQueue.global().async(group: group) { _ = try? sandbox.run(["remove", "alice"]) }
      group.wait()
      #expect(try sandbox.invariantViolations() == [])
      try? sandbox.run(["add", "alice", "--remember", "--password-stdin"], stdin: "123456\n")
    }
  }

  /// Eight scripts meet the same expired session: one logs in again, the others take its new
  /// session. Eight logins would each take the session over from the one before.
  @Test func commandsRacingOverOneExpiredSessionLogInAgainOnce() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "bob"])
    try world.backend.control("expire", ["name": "bob"])
    // Every answer takes 0.3 s, so all eight meet the expiry while the first one logs in again.
    try world.backend.control("delay", ["seconds": 0.3])
    _ = try world.seen()
    let failures = ThreadSafeList<String>()
    let group = DispatchGroup()
    for _ in 0..<8 {
      DispatchQueue.global().async(group: group) {
        let result = try? sandbox.run(["request", "bob", "GET", "me"])
        if result?.status != 0 { failures.append("\(String(describing: result))") }
      }
    }
    group.wait()
    #expect(failures.all.isEmpty, "\(failures.all)")
    #expect(try world.seen().filter { $0 == "login" }.count == 1, "one re-login for one expiry")
    try sandbox.ok(["request", "bob", "GET", "me"])
    #expect(try sandbox.invariantViolations() == [])
  }
}

/// A command that waited on an account's login lock while another process logged the account
/// in uses that process's session rather than logging in a second time (which would take the
/// session over at a single sign-on backend): the built binary, a real keyring, the test
/// backend. The wait is made certain: the test holds the lock until the command waits for it,
/// then stops the command (SIGSTOP) while the other process logs in. The rules are pinned over
/// the fakes (SessionFlowRaceTests); these prove the wiring across processes.
@Suite(.serialized, .blocking) struct LoginLockWaitTests {
  /// `accounts ARGUMENTS` started while alice's login lock is held, stopped once it waits for
  /// the lock, and `accounts login alice` run meanwhile with the lock free: the command is
  /// returned still stopped, waiting.
  func waitingWhileAnotherProcessLogsIn(
    _ world: Fixture, _ arguments: [String]
  ) throws -> BackgroundAccounts {
    let lockPath = world.sandbox.indexPath + ".sessions.lock"
    let held = try HeldLoginLock(lockPath)
    let waiter = try BackgroundAccounts(world.sandbox, arguments)
    do {
      try waiter.waitUntilWaitingFor(lockPath: lockPath)
      waiter.stop()
      try waiter.waitUntilStopped()
      held.release()
      try world.sandbox.ok(["login", "alice"])
    } catch {
      waiter.kill()
      throw error
    }
    return waiter
  }

  @Test func aSwitchThatWaitedWhileAnotherProcessLoggedInReusesThatSession() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let waiter = try waitingWhileAnotherProcessLogsIn(world, ["switch", "alice", "--no-hooks"])
    defer { if waiter.process.isRunning { waiter.kill() } }
    let token = try world.keyringToken("alice")
    waiter.resume()
    let result = try waiter.finish()
    #expect(result.status == 0, "\(result)")
    #expect(result.standardError.contains("switched to alice@corp: its session is"), "reused: \(result)")
    #expect(try world.seen() == ["login"], "one login at the backend: the other process's")
    #expect(world.slot == "alice@corp")
    #expect(try world.keyringToken("alice") == token)
    #expect(try world.sandbox.invariantViolations().isEmpty)
  }

  /// `token --check` finds the other process's session once it holds the lock, asks the
  /// backend about it, and carries out the verdict ("expired": one login again, under the lock
  /// it already holds).
  @Test func aCommandThatWaitedOnTheLoginLockGetsAVerdictOnTheOtherProcessSession() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let waiter = try waitingWhileAnotherProcessLogsIn(world, ["token", "alice", "--check"])
    defer { if waiter.process.isRunning { waiter.kill() } }
    let fresh = try #require(try world.keyringToken("alice"))
    try world.backend.control("expire", ["name": "alice"])
    _ = try world.seen()
    waiter.resume()
    let result = try waiter.finish()
    #expect(result.status == 0, "\(result)")
    let requests = try world.backend.requests()
    let paths = requests.compactMap { ($0["path"] as? String)?.replacingOccurrences(of: "/plain/plain/", with: "") }
    #expect(paths == ["check", "login"], "a verdict on the other's session, then one login again: \(result)")
    let checked = (requests.first?["headers"] as? [String: Any])?["authorisedtoken"] as? String
    #expect(checked == fresh, "the session checked is the other process's")
    let token = try #require(try world.keyringToken("alice"))
    #expect(result.standardOutput == token + "\n" && token != fresh, "\(result)")
    #expect(result.standardError.contains("logging in again with the remembered password"), "\(result)")
    #expect(try world.sandbox.invariantViolations().isEmpty)
  }
}
