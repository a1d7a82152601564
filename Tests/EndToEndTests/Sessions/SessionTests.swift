import Foundation
import TestSupport
import Testing

/// The session lifecycle (SPEC §3, §4) with the built binary, a real keyring and the test
/// backend on 127.0.0.1: every behaviour of the issue, each proved by what the backend saw and
/// what the keyring and index hold afterwards.
@Suite(.serialized, .blocking) struct SessionTests {
  /// alice (123456, remembered), bob (hunter2, remembered) and carol (secret3, not remembered)
  /// on backend corp: plain form login with check and logout paths.
  final class World {
    let sandbox: Sandbox
    let backend: TestBackend

    init(provider: SecretServiceProvider = .gnomeKeyring) throws {
      sandbox = try Sandbox(provider: provider)
      backend = try TestBackend()
      try sandbox.ok([
        "backend", "add", "corp", "--adapter", "plain", "--set", "base_url=\(backend.url)/plain/plain",
        "--set", "allow_insecure_transport=true", "--set", "check_path=check", "--set", "logout_path=logout",
      ])
      try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "123456\n")
      try sandbox.ok(["add", "bob", "--remember", "--password-stdin"], stdin: "hunter2\n")
      try sandbox.ok(["add", "carol"])
    }

    func close() {
      backend.stop()
      sandbox.close()
    }

    /// The paths the backend saw since the last call, then forgets them.
    func seen() throws -> [String] {
      let paths = try backend.requests().compactMap { $0["path"] as? String }.map { $0.replacingOccurrences(of: "/plain/plain/", with: "") }
      try backend.control("log/clear")
      return paths
    }

    func account(_ name: String) throws -> [String: Any] {
      let index = try sandbox.indexJSON()
      let accounts = index["accounts"] as? [[String: Any]] ?? []
      return accounts.first { $0["user"] as? String == name } ?? [:]
    }

    var slot: String? { (try? sandbox.indexJSON())?["auto_login"] as? String }

    /// The token in the keyring, read with secret-tool.
    func keyringToken(_ user: String) throws -> String? {
      let result = try runProcess(
        "/usr/bin/secret-tool", ["lookup", "backend", "corp", "account", user, "kind", "token"],
        environment: sandbox.environment, timeout: 20)
      return result.status == 0 && !result.standardOutput.isEmpty ? result.standardOutput : nil
    }
  }

  /// On both providers: a login replaces the token of an item another process stored.
  @Test(arguments: SecretServiceProvider.allCases)
  func loginSwitchBackAndForthAndTheTokenForScripts(_ provider: SecretServiceProvider) throws {
    let world = try World(provider: provider)
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
    let world = try World(provider: provider)
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
    let world = try World()
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
    let world = try World()
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
    let world = try World(provider: provider)
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
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let backend = try TestBackend()
    try sandbox.ok([
      "backend", "add", "corp", "--adapter", "plain", "--set", "base_url=\(backend.url)/plain/plain",
      "--set", "allow_insecure_transport=true",
    ])
    try sandbox.ok(["login", "alice@corp", "--remember", "--auto", "--password-stdin"], stdin: "123456\n")
    #expect(try sandbox.ok(["current"]).standardOutput == "alice@corp\n")
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func noWayToLogInIsExit3AtOnce() throws {
    let world = try World()
    defer { world.close() }
    let start = Date()
    let result = try world.sandbox.run(["token", "carol"])
    #expect(result.status == 3, "\(result)")
    #expect(Date().timeIntervalSince(start) < 10)
    #expect(try world.seen().isEmpty)
  }

  @Test func anUnreachableBackendChangesNothing() throws {
    let world = try World()
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

  @Test func execHandsTheSessionToTheCommandThroughItsEnvironmentOnly() throws {
    let world = try World()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "bob"])
    let result = try sandbox.run(["exec", "bob", "--", "sh", "-c", "echo \"$ACCOUNTS_ACCOUNT $ACCOUNTS_USER_ID $ACCOUNTS_TOKEN\"; exit 7"])
    #expect(result.status == 7, "CMD's exit status is the caller's: \(result)")
    let token = try #require(try world.keyringToken("bob"))
    #expect(result.standardOutput == "bob@corp 1002 \(token)\n")
    // A signal that ends CMD ends the caller's child too: the shell sees 128 + SIGTERM.
    let signalled = try runProcess(
      "/bin/sh", ["-c", "\"$0\" exec --account bob -- sh -c 'kill -TERM $$'; echo \"status $?\"", PackagePaths.accounts],
      environment: sandbox.environment, timeout: 60)
    #expect(signalled.standardOutput == "status 143\n", "\(signalled)")
  }

  @Test func requestThroughTheAdapterWithTheAccountFromTheEnvironment() throws {
    let world = try World()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["switch", "alice"])
    let posted = try sandbox.ok(["request", "POST", "user/info", "remark=hello"], environment: ["ACCOUNTS_ACCOUNT": "bob"])
    let reply = try #require(try JSONSerialization.jsonObject(with: Data(posted.standardOutput.utf8)) as? [String: Any])
    #expect(reply["userId"] as? Int == 1002, "ACCOUNTS_ACCOUNT picked bob: \(reply)")
    #expect((reply["params"] as? [String: Any])?["remark"] as? String == "hello", "\(reply)")
    #expect(world.slot == "alice@corp", "the slot is untouched")
    for path in ["../../control/log/clear", "me?x=1", "//other.example/x", "a/./b"] {
      let refused = try sandbox.run(["request", "bob", "GET", path])
      #expect(refused.status == 2, "PATH stays below base_url, parameters go as KEY=VALUE: \(refused)")
    }
    let explicit = try sandbox.ok(["request", "bob", "GET", "me"])
    #expect(explicit.standardOutput.contains("\"userId\": 1002") || explicit.standardOutput.contains("\"userId\":1002"), "\(explicit)")
  }

  @Test func statusChecksEverySessionWithBoundedConcurrency() throws {
    let world = try World()
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

  @Test func twentySwitchesRacingLeaveOneHolderAndBothTokens() throws {
    let world = try World()
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
    let world = try World()
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
    let world = try World()
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

  @Test func switchBackAfterThePreviousHolderWasRemoved() throws {
    let world = try World()
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
