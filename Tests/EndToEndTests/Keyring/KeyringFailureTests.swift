import Foundation
import TestSupport
import Testing

/// What happens when the Secret Service is missing, hung or locked: exit 7 with a message that
/// names the fix, within the deadline; and `list` and completion keep working, since they never
/// touch D-Bus.
@Suite(.blocking) struct KeyringFailureTests {
  /// list and completion answer from the index alone, whatever the keyring does.
  func expectListAndCompletionWork(_ sandbox: Sandbox, _ environment: [String: String]) throws {
    let list = try sandbox.run(["list"], environment: environment, timeout: 10)
    #expect(list.status == 0, "\(list)")
    #expect(list.standardOutput.contains("alice") && list.standardOutput.contains("remembered"))
    let completion = try sandbox.run(["__complete", "accounts"], environment: environment, timeout: 10)
    #expect(completion.status == 0)
    #expect(completion.standardOutput == "alice\nbob\n")
  }

  @Test func noSessionBusExits7AtOnce() throws {
    let world = try Fixture.aliceAndBob()
    defer { world.close() }
    let sandbox = world.sandbox
    let gone = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(sandbox.keyring.root)/no-such-bus"]
    let result = try sandbox.run(["password", "alice"], environment: gone, timeout: 20)
    #expect(result.status == 7, "\(result)")
    #expect(result.standardError.hasPrefix("accounts: cannot reach the D-Bus session bus"), "\(result.standardError)")
    #expect(result.standardError.split(separator: "\n").count == 1)
    #expect(result.standardError.contains("dbus-run-session -- bash"), "a fix an installed copy's user can run")
    #expect(!result.standardError.contains("scripts/"), "no script of the source tree")
    #expect(result.seconds < 5, "answered within the 5 s deadline")
    #expect(!result.standardError.contains("alice-pw"))
    try expectListAndCompletionWork(sandbox, gone)
  }

  @Test(arguments: SecretServiceProvider.allCases) func aHungDaemonExits7WithinTheDeadline(_ provider: SecretServiceProvider) throws {
    let world = try Fixture.aliceAndBob(provider)
    defer { world.close() }
    let sandbox = world.sandbox
    kill(sandbox.keyring.daemonProcessID, SIGSTOP)
    defer { kill(sandbox.keyring.daemonProcessID, SIGCONT) }
    let result = try sandbox.run(["password", "alice"], environment: ["ACCOUNTS_SECRET_TIMEOUT": "1"], timeout: 30)
    #expect(result.status == 7, "\(result)")
    #expect(result.standardError.contains("did not answer"), "\(result.standardError)")
    #expect(result.standardError.contains("ACCOUNTS_SECRET_TIMEOUT"))
    #expect(result.seconds < 4, "the 1 s deadline held (took \(result.seconds) s)")
    try expectListAndCompletionWork(sandbox, [:])
    let badTimeout = try sandbox.run(["password", "alice"], environment: ["ACCOUNTS_SECRET_TIMEOUT": "soon"])
    #expect(badTimeout.status == 2)
    #expect(badTimeout.standardError.contains("ACCOUNTS_SECRET_TIMEOUT='soon' is not a number of seconds"))
  }

  @Test(arguments: SecretServiceProvider.allCases) func aLockedCollectionSaysLockedNeverNoPassword(_ provider: SecretServiceProvider) throws {
    let world = try Fixture.aliceAndBob(provider)
    defer { world.close() }
    let sandbox = world.sandbox
    let locked = try sandbox.ok(["lock"])
    #expect(locked.standardError.hasPrefix("locked the keyring collection '"))
    let result = try sandbox.run(["password", "alice"], timeout: 30)
    #expect(result.status == 7, "\(result)")
    #expect(result.standardError.contains("is locked"), "\(result.standardError)")
    #expect(!result.standardError.contains("no remembered password"))
    #expect(result.standardOutput.isEmpty)

    // Nothing is lost while locked: a store fails, a remove keeps the account.
    let add = try sandbox.run(["add", "carol", "--remember", "--password-stdin"], stdin: "carol-pw\n", timeout: 30)
    #expect(add.status == 7, "\(add)")
    let remove = try sandbox.run(["remove", "alice"], timeout: 30)
    #expect(remove.status == 7, "\(remove)")
    // bob claims no secret: a locked keyring is no reason to keep him; alice stays.
    let clear = try sandbox.run(["clear", "--yes"], timeout: 30)
    #expect(clear.status == 7, "\(clear)")
    #expect(clear.standardError.hasPrefix("forgot 1 account; kept 1 whose secrets could not be deleted\naccounts: the keyring collection"), "\(clear.standardError)")
    let list = try sandbox.ok(["list"]).standardOutput
    #expect(list.contains("alice") && !list.contains("carol") && !list.contains("bob"), "\(list)")
    let nothing = try sandbox.run(["remove", "alice"], timeout: 30)
    #expect(nothing.status == 7 && nothing.standardError.split(separator: "\n").count == 1, "just the error: \(nothing)")

    let doctor = try sandbox.run(["doctor"], timeout: 30)
    #expect(doctor.status == 7, "\(doctor)")
    #expect(doctor.standardOutput.contains("FAIL  collection"), "\(doctor.standardOutput)")
    // The fix names the provider's own way to unlock.
    #expect(doctor.standardOutput.contains(
      provider == .keepassxc ? "fix: unlock the database in KeePassXC" : "fix: unlock it in Seahorse"), "\(doctor.standardOutput)")
  }

  /// Without the library, what needs libsecret (a write) exits 7 with the fix; a readable
  /// password, read over the bus directly, and `list` still work.
  @Test func aMissingSupportLibraryExits7AndListStillWorks() throws {
    let world = try Fixture.aliceAndBob()
    defer { world.close() }
    let sandbox = world.sandbox
    // The binary alone, without libAccountsPrivate.so beside it or in ../lib/accounts.
    let lonely = sandbox.keyring.root + "/bin/accounts"
    try FileManager.default.createDirectory(atPath: sandbox.keyring.root + "/bin", withIntermediateDirectories: true)
    try copyExecutable(from: PackagePaths.accounts, to: lonely)
    let read = try runProcess(lonely, ["password", "alice"], environment: sandbox.environment)
    #expect(read.status == 0 && read.standardOutput == "alice-pw\n", "\(read)")
    let result = try runProcess(lonely, ["passwd", "alice", "--password-stdin"], environment: sandbox.environment, standardInput: "new-pw\n")
    #expect(result.status == 7, "\(result)")
    #expect(result.standardError.hasPrefix("accounts: cannot load accounts' Secret Service support: libAccountsPrivate.so is in neither"), "\(result.standardError)")
    #expect(result.standardError.contains("make install"))
    let list = try runProcess(lonely, ["list"], environment: sandbox.environment)
    #expect(list.status == 0 && list.standardOutput.contains("alice"), "\(list)")
  }

  @Test(arguments: SecretServiceProvider.allCases) func doctorReportsAHealthySetup(_ provider: SecretServiceProvider) throws {
    let world = try Fixture.aliceAndBob(provider)
    defer { world.close() }
    let sandbox = world.sandbox
    let doctor = try sandbox.ok(["doctor"])
    #expect(doctor.standardOutput.contains("ok    keyring"), "\(doctor.standardOutput)")
    #expect(doctor.standardOutput.contains("\(provider.processName) (pid \(sandbox.keyring.daemonProcessID))"), "\(doctor.standardOutput)")
    #expect(doctor.standardOutput.contains("2 accounts"))
    #expect(!doctor.standardOutput.contains("FAIL"))
    let json = try #require(try sandbox.json(["doctor", "--json"]) as? [[String: Any]])
    #expect(json.allSatisfy { Set($0.keys) == ["check", "ok", "detail", "fix"] && $0["ok"] as? Bool == true })

    chmod(sandbox.indexPath, 0o644)
    let open = try sandbox.run(["doctor"])
    #expect(open.status == 1)
    #expect(open.standardOutput.contains("is open to others (mode 0644)"))
    #expect(open.standardOutput.contains("fix: chmod 600 \(sandbox.indexPath)"))
  }

  /// gnome-keyring killed while a command waits on it (stopped first, so that the command is
  /// surely inside a call): exit 7 at once, not at the deadline (30 s here), whether the call
  /// that was waiting learns it from D-Bus ("recipient disconnected") or from the command's
  /// own watch of the name; for a direct read (waiting on ReadAlias, its first call to the
  /// keyring, before it opens a session) and for a call through
  /// libsecret (`lock`, waiting on the service's properties). The direct read does not fall
  /// back to libsecret's path then, which would ask whatever D-Bus starts in the keyring's place.
  @Test(arguments: [
    (["password", "alice"], "ReadAlias"), (["lock"], "GetAll"),
  ])
  func aKilledDaemonEndsTheCommandAtOnce(_ arguments: [String], waitingOn call: String) throws {
    let world = try Fixture.aliceAndBob()
    defer { world.close() }
    let sandbox = world.sandbox
    let monitor = try BusMonitor(sandbox)
    defer { monitor.stop() }
    let daemon = sandbox.keyring.daemonProcessID
    kill(daemon, SIGSTOP)
    defer { kill(daemon, SIGCONT) }
    let reader = try BackgroundAccounts(sandbox, arguments, environment: ["ACCOUNTS_SECRET_TIMEOUT": "30"])
    // Waiting on the stopped daemon, after who owns the name was asked.
    try monitor.waitForCall(call, after: "GetNameOwner")
    kill(daemon, SIGKILL)
    let killed = Date()
    let result = try reader.finish()
    let seconds = Date().timeIntervalSince(killed)
    #expect(result.status == 7, "\(result)")
    #expect(!result.standardError.contains("did not answer"), "not the deadline: \(result.standardError)")
    if arguments == ["password", "alice"] {
      // What happened, as libsecret's path says it: not the answer of a keyring D-Bus started
      // in its place ("no default collection"), another provider than rule 6 checked.
      #expect(result.standardError.contains("left the session bus during the call"), "\(result.standardError)")
    }
    #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
    #expect(!result.standardOutput.contains("alice-pw"))
    #expect(seconds < 3, "ended \(seconds) s after the kill, not at the 30 s deadline")
  }

  /// A keyring that stops answering before doctor lists its items: the items row fails with
  /// the wait ACCOUNTS_SECRET_TIMEOUT set and doctor exits 7, never "ok, not checked". An
  /// account left unsettled makes doctor write the index just before that row: stopped there
  /// (the interposer), the daemon is stopped, then doctor goes on.
  @Test func doctorFailsTheItemsRowWhenTheKeyringStopsAnswering() throws {
    let world = try Fixture.aliceAndBob()
    defer { world.close() }
    let sandbox = world.sandbox
    let add = try BackgroundAccounts(
      sandbox, ["add", "carol", "--remember", "--password-stdin"], stdin: "carol-pw\n",
      environment: Interposer.environment(stop: "before:2"))
    try add.waitUntilStopped()
    add.kill()
    let doctor = try BackgroundAccounts(
      sandbox, ["doctor"],
      environment: Interposer.environment(stop: "after:1").merging(["ACCOUNTS_SECRET_TIMEOUT": "1"]) { $1 })
    try doctor.waitUntilStopped()
    let daemon = sandbox.keyring.daemonProcessID
    kill(daemon, SIGSTOP)
    defer { kill(daemon, SIGCONT) }
    doctor.resume()
    let result = try doctor.finish()
    let output = squeezed(result.standardOutput)
    #expect(output.contains("settled carol@corp"), "stopped after the settling, not before: \(result)")
    #expect(
      output.contains("FAIL items not checked: the Secret Service did not answer (list the items of accounts) within 1 s"),
      "\(result)")
    #expect(result.status == 7, "\(result)")
  }

  /// A logout racing `status`: the token item is deleted between the search and the read (the
  /// interposer stops the command just before the read; secret-tool deletes the item). That
  /// is "no session" (here: logged in again with the remembered password), never exit 7 "did
  /// not grant access".
  @Test func aTokenDeletedBetweenSearchAndReadIsNoSession() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice"])
    let status = try BackgroundAccounts(sandbox, ["status"], environment: ReadInterposer.environment)
    try status.waitUntilStopped()
    let clear = try runProcess(
      "/usr/bin/secret-tool", ["clear", "backend", "corp", "account", "alice", "kind", "token"],
      environment: sandbox.environment, timeout: 20)
    #expect(clear.status == 0, "\(clear)")
    status.resume()
    let result = try status.finish()
    #expect(result.status == 0, "\(result)")
    #expect(!result.standardError.contains("did not grant access"), "\(result)")
    #expect(result.standardOutput.contains("alice@corp") && result.standardOutput.contains("valid"), "\(result)")
    #expect(try world.keyringToken("alice") != nil, "the new session's token is stored")
  }

  /// "Locked" beats "no password" even when the search comes back empty, as it does on
  /// providers that hide the items of a locked collection (here: the item is gone).
  @Test func aLockedCollectionWithNothingFoundSaysLocked() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "bob", "--remember", "--password-stdin"], stdin: "pw\n")
    let cleared = try runProcess(
      "/usr/bin/secret-tool", ["clear", "backend", "corp", "account", "bob", "kind", "password"],
      environment: sandbox.environment, timeout: 20)
    #expect(cleared.status == 0)
    try sandbox.ok(["lock"])
    let result = try sandbox.run(["password", "bob"], timeout: 30)
    #expect(result.status == 7, "\(result)")
    #expect(result.standardError.contains("is locked"), "\(result)")
  }
}

/// Tests/Fixtures/interpose/reads.c built once per test process: with `environment`, the built
/// binary stops itself (SIGSTOP) just before its first read of secrets (GetSecret/GetSecrets).
enum ReadInterposer {
  static let path = Interposer.build("reads")

  static var environment: [String: String] { ["LD_PRELOAD": path, "READS_STOP": "1"] }
}

extension Fixture {
  /// alice (her password alice-pw remembered) and bob saved on corp, a backend no server
  /// answers for.
  static func aliceAndBob(_ provider: SecretServiceProvider = .gnomeKeyring) throws -> Fixture {
    try Fixture(provider).addingBackend("corp").saving("alice", password: "alice-pw").saving("bob")
  }
}
