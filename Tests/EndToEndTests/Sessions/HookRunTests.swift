import Foundation
import TestSupport
import Testing

/// Hooks with the built binary, a real keyring and the test backend: what a hook's environment
/// holds, what a failing or hanging hook does to the command, and which hooks run for which
/// account in which order.
@Suite(.serialized, .blocking) struct HookRunTests {
  /// A directory for what hooks write.
  func outputDirectory(_ world: Fixture) throws -> String {
    let directory = world.sandbox.keyring.root + "/hook-output"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
  }

  func read(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The environment `env` printed, as a dictionary.
  func variables(_ path: String) -> [String: String] {
    var variables: [String: String] = [:]
    for line in (read(path) ?? "").split(separator: "\n") {
      guard let equals = line.firstIndex(of: "=") else { continue }
      variables[String(line[..<equals])] = String(line[line.index(after: equals)...])
    }
    return variables
  }

  @Test func aSwitchHookGetsTheAccountAndNoSecretUnlessItAsksForTheToken() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    let out = try outputDirectory(world)
    try sandbox.ok(["hook", "add", "switch", "env > '\(out)/env'; echo said-on-stdout"])
    try sandbox.ok(["hook", "add", "switch", "printf %s \"${ACCOUNTS_TOKEN-unset}\" > '\(out)/token'", "--with-token"])
    try sandbox.ok(["login", "bob", "--no-hooks"])
    let inherited = ["ACCOUNTS_TOKEN": "leaked-from-env", "ACCOUNTS_USER_ID": "stale"]

    // bob's session is reused: the token is read from the keyring only for the hook that asks.
    let switched = try sandbox.ok(["switch", "bob"], environment: inherited)
    #expect(switched.standardOutput.isEmpty, "a hook's output goes to stderr: \(switched)")
    #expect(switched.standardError.contains("said-on-stdout"), "\(switched)")
    let environment = variables(out + "/env")
    #expect(environment["ACCOUNTS_ACCOUNT"] == "bob@corp")
    #expect(environment["ACCOUNTS_USER"] == "bob")
    #expect(environment["ACCOUNTS_BACKEND"] == "corp")
    #expect(environment["ACCOUNTS_EVENT"] == "switch")
    #expect(environment["ACCOUNTS_TOKEN"] == nil, "no secret without --with-token, not even an inherited one")
    #expect(environment["ACCOUNTS_USER_ID"] == nil)
    let token = try #require(try world.keyringToken("bob"))
    #expect(read(out + "/token") == token, "--with-token gives bob's token, not the inherited one")

    // After a login (alice has no session yet) the token is the one just issued.
    try sandbox.ok(["switch", "alice"])
    #expect(variables(out + "/env")["ACCOUNTS_ACCOUNT"] == "alice@corp")
    #expect(read(out + "/token") == (try world.keyringToken("alice")))
    #expect(read(out + "/token") != token)
  }

  /// A token holding a NUL byte (changed in the keyring behind accounts' back) cannot be an
  /// environment variable: the hook that asks for it is not run, never run with the token cut
  /// at the NUL; a warning says why, the other hooks run and the switch stands.
  @Test func aTokenWithANulByteIsNotGivenToAHook() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    let out = try outputDirectory(world)
    try sandbox.ok(["hook", "add", "switch", "printf %s \"${ACCOUNTS_TOKEN-unset}\" > '\(out)/token'", "--with-token"])
    try sandbox.ok(["hook", "add", "switch", "touch '\(out)/plain'"])
    try sandbox.ok(["login", "bob", "--no-hooks"])
    let plant = try runProcess(
      "/bin/sh",
      [
        "-c",
        #"printf 'first\000second' | secret-tool store --label=x xdg:schema io.accounts.Secret "#
          + "backend corp account bob kind token",
      ],
      environment: sandbox.environment, timeout: 20)
    #expect(plant.status == 0, "\(plant)")

    let switched = try sandbox.ok(["switch", "bob"])
    #expect(
      switched.standardError.contains(
        "hook 1 (switch) was not run: the token contains a NUL byte, which no environment variable can hold"),
      "\(switched)")
    #expect(read(out + "/token") == nil, "the hook that asked for the token never ran")
    #expect(FileManager.default.fileExists(atPath: out + "/plain"), "the other hook ran")
    #expect(!switched.standardError.contains("first") && !switched.standardError.contains("second"))
  }

  @Test func aFailingHookWarnsAndTheSwitchStands() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    let out = try outputDirectory(world)
    try sandbox.ok(["hook", "add", "switch", "touch '\(out)/first'"])
    try sandbox.ok(["hook", "add", "switch", "echo failing >&2; exit 3"])
    try sandbox.ok(["hook", "add", "switch", "touch '\(out)/third'"])
    let result = try sandbox.run(["switch", "alice"])
    #expect(result.status == 0, "\(result)")
    #expect(result.standardError.contains("accounts: warning: hook 2 (switch) exited 3\n"), "\(result)")
    #expect(result.standardError.contains("failing"))
    #expect(world.slot == "alice@corp", "a failing hook undoes nothing")
    #expect(FileManager.default.fileExists(atPath: out + "/first"))
    #expect(FileManager.default.fileExists(atPath: out + "/third"), "the hooks after it still run")
  }

  @Test func aHookPastItsTimeoutIsKilledWithWhatItStarted() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    let out = try outputDirectory(world)
    try sandbox.ok(["hook", "add", "switch", "sleep 30 & echo $! > '\(out)/child'; sleep 30", "--timeout", "1"])
    let result = try sandbox.run(["switch", "alice"], timeout: 20)
    #expect(result.status == 0, "\(result)")
    #expect(result.seconds < 2.5, "stopped after its 1 s: \(result.seconds) s")
    #expect(result.standardError.contains("accounts: warning: hook 1 (switch) did not finish within 1 s and was stopped"), "\(result)")
    #expect(world.slot == "alice@corp")
    let child = try #require(Int32((read(out + "/child") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)))
    // Killed with its group; a zombie waiting for init to reap it is dead too.
    let state = read("/proc/\(child)/stat").map { $0.split(separator: ")").last?.split(separator: " ").first ?? "" }
    #expect(state == nil || state == "Z", "the hook's child \(child) still runs: \(state ?? "")")
  }

  @Test func noHooksSkipsThemOnSwitchLoginAndLogout() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    let out = try outputDirectory(world)
    for event in ["switch", "login", "logout"] {
      try sandbox.ok(["hook", "add", event, "echo \(event) >> '\(out)/ran'"])
    }
    try sandbox.ok(["login", "alice", "--no-hooks"])
    try sandbox.ok(["switch", "alice", "--no-hooks"])
    try sandbox.ok(["logout", "alice", "--no-hooks"])
    #expect(read(out + "/ran") == nil)
    try sandbox.ok(["login", "alice"])
    try sandbox.ok(["switch", "alice"])
    try sandbox.ok(["logout", "alice"])
    #expect(read(out + "/ran") == "login\nswitch\nlogout\n")
  }

  @Test func perBackendAndPerAccountHooksRunForTheirAccountsAfterTheGlobalOnes() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    let out = try outputDirectory(world)
    try sandbox.addBackend("oss")
    // Added out of order: they run global, backend, account, each in the order added.
    try sandbox.ok(["hook", "add", "login", "echo account-$ACCOUNTS_USER >> '\(out)/order'", "--account", "alice"])
    try sandbox.ok(["hook", "add", "login", "echo backend-$ACCOUNTS_BACKEND >> '\(out)/order'", "--backend", "corp"])
    try sandbox.ok(["hook", "add", "login", "echo oss >> '\(out)/order'", "--backend", "oss"])
    try sandbox.ok(["hook", "add", "login", "echo global >> '\(out)/order'"])
    try sandbox.ok(["hook", "add", "logout", "echo $ACCOUNTS_EVENT-$ACCOUNTS_ACCOUNT >> '\(out)/order'", "--account", "alice"])
    let listed = try #require(try sandbox.json(["hooks", "--json"]) as? [[String: Any]])
    #expect(listed.map { $0["number"] as? Int } == [1, 2, 3, 4, 5])
    #expect(listed[0]["account"] as? String == "alice@corp")
    #expect(listed[1]["backend"] as? String == "corp")
    #expect(listed[3]["backend"] is NSNull && listed[3]["account"] is NSNull)

    try sandbox.ok(["login", "alice"])
    #expect(read(out + "/order") == "global\nbackend-corp\naccount-alice\n")
    try FileManager.default.removeItem(atPath: out + "/order")
    try sandbox.ok(["login", "bob"])
    #expect(read(out + "/order") == "global\nbackend-corp\n")
    try FileManager.default.removeItem(atPath: out + "/order")
    try sandbox.ok(["logout", "alice"])
    #expect(read(out + "/order") == "logout-alice@corp\n")

    // Removing hook 1 renumbers; a number that names no hook is a usage error naming the list.
    try sandbox.ok(["hook", "remove", "1"])
    let bad = try sandbox.run(["hook", "remove", "5"])
    #expect(bad.status == 2, "\(bad)")
    #expect(bad.standardError.contains("accounts hooks"), "\(bad)")
    let both = try sandbox.run(["hook", "add", "login", "x", "--backend", "corp", "--account", "alice"])
    #expect(both.status == 2, "a hook is for a backend or an account: \(both)")
  }

  /// A hook that runs `accounts switch -`: the switch it starts does its job but runs no hooks,
  /// so the hook runs once instead of recursing until its timeout.
  @Test func anAccountsCommandStartedByAHookRunsNoHooks() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    let out = try outputDirectory(world)
    try sandbox.ok(["switch", "alice", "--no-hooks"])
    try sandbox.ok(["switch", "bob", "--no-hooks"])
    // Bounded even if the guard broke: the hook stops starting switches after its fifth run
    // (without the guard, each nested hook is its own process group, out of reach of the
    // outer hook's timeout).
    let ran = out + "/ran"
    try sandbox.ok([
      "hook", "add", "switch",
      "echo \"$ACCOUNTS_ACCOUNT\" >> '\(ran)'; [ $(wc -l < '\(ran)') -ge 5 ] || '\(PackagePaths.accounts)' switch -",
    ])
    let result = try sandbox.run(["switch", "alice"], timeout: 30)
    #expect(result.status == 0, "\(result)")
    #expect(!result.standardError.contains("warning"), "the hook's own switch succeeded: \(result)")
    #expect(read(ran) == "alice@corp\n", "the hook ran once")
    #expect(world.slot == "bob@corp", "the hook's `switch -` went back to bob")
  }
}
