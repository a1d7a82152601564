import Foundation
import TestSupport
import Testing

/// What an interrupted command leaves in the keyring is cleaned up by the next command that
/// opens the keyring for that account (or for all: status, doctor), not only by one that
/// stores a secret; and doctor names keyring items that nothing claims.
@Suite(.blocking) struct SettlingTests {
  /// A `login --remember` of carol (logged in, password not remembered) killed after it stored
  /// the password and the new token, before the index claimed them.
  func interruptedLogin() throws -> Fixture {
    let world = try Fixture().serving().addingServedBackend("corp")
    let sandbox = world.sandbox
    try sandbox.ok(["login", "carol", "--password-stdin"], stdin: "secret3\n")
    let login = try BackgroundAccounts(
      sandbox, ["login", "carol", "--remember", "--password-stdin"], stdin: "secret3\n",
      environment: Interposer.environment(stop: "before:2"))
    try login.waitUntilStopped()
    login.kill()
    #expect(try sandbox.indexJSON()["unsettled"] as? [String] == ["carol@corp"])
    #expect(try sandbox.invariantViolations() == ["the keyring holds a password of carol@corp, which the index says is not remembered"])
    return world
  }

  @Test(arguments: [["token", "carol"], ["logout", "carol"], ["exec", "carol", "--", "/bin/true"], ["status"], ["doctor"]])
  func theNextCommandThatOpensTheKeyringSettlesWhatAKilledLoginLeft(_ command: [String]) throws {
    let world = try interruptedLogin()
    defer { world.close() }
    let sandbox = world.sandbox
    let result = try sandbox.run(command)
    #expect(result.status == 0, "\(result)")
    #expect(try sandbox.allKeyringItems().filter { $0.account == "carol" && $0.kind == "password" } == [], "\(command)")
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.indexJSON()["unsettled"] == nil)
  }

  @Test func listAndCurrentStillReadOnlyTheIndex() throws {
    let world = try interruptedLogin()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["list"])
    #expect(try sandbox.run(["current"]).status == 3, "no slot holder")
    #expect(try sandbox.indexJSON()["unsettled"] as? [String] == ["carol@corp"], "no D-Bus for list and current")
  }

  @Test func doctorReportsItemsNothingClaimsAndDeletesNone() throws {
    let world = try Fixture().addingBackend("corp").saving("alice", password: "alice-pw")
    defer { world.close() }
    let sandbox = world.sandbox
    #expect(try sandbox.run(["doctor"]).standardOutput.contains("1 item of accounts in the keyring, each claimed"))

    let plant = try runProcess(
      "/usr/bin/secret-tool",
      ["store", "--label", "planted", "xdg:schema", "io.accounts.Secret", "backend", "corp", "account", "ghost", "kind", "password"],
      environment: sandbox.environment, standardInput: "left-by-another-install", timeout: 20)
    #expect(plant.status == 0, "\(plant)")
    let doctor = try sandbox.run(["doctor"])
    #expect(doctor.status == 1, "an unclaimed item is a problem (exit 1, as for files and settings): \(doctor)")
    #expect(doctor.standardOutput.contains("FAIL  items"), "\(doctor)")
    #expect(doctor.standardOutput.contains("1 item of accounts in the keyring that no account or backend claims: ghost@corp password"))
    let fix = "secret-tool clear xdg:schema io.accounts.Secret account ghost backend corp kind password"
    #expect(doctor.standardOutput.contains(fix), "\(doctor)")
    #expect(!doctor.standardOutput.contains("left-by-another-install") && !doctor.standardError.contains("left-by-another-install"))
    #expect(try sandbox.allKeyringItems().contains { $0.account == "ghost" }, "reported, not deleted")

    let cleared = try runProcess("/bin/sh", ["-c", fix], environment: sandbox.environment, timeout: 20)
    #expect(cleared.status == 0, "the fix as printed works: \(cleared)")
    #expect(try sandbox.run(["doctor"]).standardOutput.contains("1 item of accounts in the keyring, each claimed"))
  }

  /// However many secrets went missing, doctor names each, with its fix, in --json too.
  @Test func doctorNamesEveryLostSecretInJSON() throws {
    var world = try Fixture().addingBackend("corp")
    let users = (1...7).map { "qa\($0)" }
    for user in users { world = try world.saving(user, password: "\(user)-pw") }
    defer { world.close() }
    let sandbox = world.sandbox
    let cleared = try runProcess(
      "/usr/bin/secret-tool", ["clear", "service", "accounts:corp"], environment: sandbox.environment, timeout: 20)
    #expect(cleared.status == 0, "\(cleared)")
    let doctor = try sandbox.run(["doctor", "--json"])
    #expect(doctor.status == 3, "\(doctor)")
    let findings = try #require(try JSONSerialization.jsonObject(with: Data(doctor.standardOutput.utf8)) as? [[String: Any]])
    let lost = findings.filter { $0["check"] as? String == "secret" }
    #expect(lost.count == 7, "\(findings)")
    for user in users {
      #expect(
        lost.contains { ($0["fix"] as? String)?.contains("`accounts passwd \(user)@corp`") == true }, "\(user): \(lost)")
    }
  }

  /// A remembered password and a token deleted outside accounts (python keyring's
  /// delete_password finds a password by service and username): list still says remembered,
  /// reading only the index; doctor names both with the commands that store them again.
  @Test func doctorReportsSecretsDeletedOutsideAccountsWithTheFix() throws {
    let world = try Fixture().serving().addingServedBackend("corp").saving("alice", password: "123456")
      .saving("bob", password: "hunter2")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice"])
    for attributes in [["service", "accounts:corp", "username", "alice"], ["backend", "corp", "account", "alice", "kind", "token"]] {
      let cleared = try runProcess("/usr/bin/secret-tool", ["clear"] + attributes, environment: sandbox.environment, timeout: 20)
      #expect(cleared.status == 0, "\(cleared)")
    }
    let (listed, loaded) = try sandbox.runNotingPrivateLibrary(["list", "--json"])
    #expect(!loaded, "list stays keyring-free")
    let alice = (try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])?.first
    #expect(alice?["remembered"] as? Bool == true, "the index still claims it: \(listed)")

    let doctor = try sandbox.run(["doctor"])
    #expect(doctor.status == 3, "a secret gone is exit 3, as for a password the keyring lost: \(doctor)")
    for (item, fix) in [("alice@corp password", "accounts passwd alice@corp"), ("alice@corp token", "accounts login alice@corp")] {
      #expect(
        squeezed(doctor.standardOutput).contains(
          "FAIL secret \(item) is gone from the keyring, though the index claims it (deleted outside accounts?)\n "
            + "fix: store it again: `\(fix)`"), "\(doctor)")
    }
    #expect(!doctor.standardOutput.contains("bob@corp"), "bob's password is there: \(doctor)")
    #expect(try sandbox.indexJSON()["unsettled"] == nil, "reported, nothing changed")

    try sandbox.ok(["passwd", "alice@corp", "--password-stdin"], stdin: "123456\n")
    try sandbox.ok(["login", "alice@corp"])
    let healed = try sandbox.run(["doctor"])
    #expect(healed.status == 0 && !healed.standardOutput.contains("FAIL"), "\(healed)")
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  /// An item without the whole backend, account and kind set: a `secret-tool clear` of its
  /// attributes would also delete items accounts claims (here alice's password), so doctor
  /// names the item instead of printing one. (Planted first: gnome-keyring's store replaces
  /// an item whose attributes include the new one's.)
  @Test func doctorSuggestsNoClearThatWouldDeleteClaimedItems() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let plant = try runProcess(
      "/usr/bin/secret-tool", ["store", "--label", "half an item", "xdg:schema", "io.accounts.Secret", "backend", "corp"],
      environment: sandbox.environment, standardInput: "partial", timeout: 20)
    #expect(plant.status == 0, "\(plant)")
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    let doctor = try sandbox.run(["doctor"])
    #expect(doctor.status == 1, "\(doctor)")
    #expect(!doctor.standardOutput.contains("secret-tool clear"), "\(doctor)")
    #expect(doctor.standardOutput.contains("'half an item' (/org/freedesktop/secrets/collection/"), "\(doctor)")
    #expect(doctor.standardOutput.contains("Seahorse or KeePassXC"), "\(doctor)")
    let password = try sandbox.run(["password", "alice"])
    #expect(password.standardOutput == "alice-pw\n", "\(password)")
  }
}
