import Foundation
import TestSupport
import Testing

/// What only KeePassXC does, against the real KeePassXC that Debian ships (2.7.4), headless:
/// access confirmation, prompts to unlock before a search, a database that exposes no group,
/// and deletes it cannot take concurrently. The behaviour both providers share is tested by the
/// suites that run on both (AccountCommandTests, KeyringFailureTests, KeyringIndexAgreementTests).
@Suite(.blocking) struct KeePassXCTests {
  /// KeePassXC's default: it asks before a program reads an entry. From a script nobody can
  /// answer: exit 7 at once, saying access was not granted and how to allow it (not that "the
  /// collection '' is locked; unlock it in Seahorse", while doctor says it is unlocked).
  @Test func accessConfirmationWithNobodyToAnswerSaysSo() throws {
    let world = try Fixture(.keepassxc, keyring: ["WITH_KEEPASSXC_CONFIRM_ACCESS": "true"]).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    let read = try sandbox.run(["password", "alice"], timeout: 30)
    #expect(read.status == 7, "\(read)")
    #expect(read.standardError.hasPrefix("accounts: KeePassXC did not grant access to 'accounts: alice@corp password'"), "\(read)")
    #expect(read.standardError.contains("Confirm when passwords are retrieved by clients"))
    #expect(!read.standardError.contains("Seahorse"))
    #expect(read.seconds < 8, "no prompt was waited for: \(read.seconds) s")
    let doctor = try sandbox.run(["doctor"], timeout: 30)
    #expect(doctor.standardOutput.contains("ok    collection"), "\(doctor)")

    try sandbox.ok(["lock"])
    let locked = try sandbox.run(["password", "alice"], timeout: 30)
    #expect(locked.status == 7)
    #expect(locked.standardError.contains("is locked"), "after `lock` the database is locked: \(locked)")
  }

  /// With "prompt to unlock before searching", a read after `lock` is "locked" at once, not a
  /// search that waits for the prompt until the deadline.
  @Test func aReadAfterLockSaysLockedWhenKeePassXCWouldPromptToSearch() throws {
    let world = try Fixture(.keepassxc, keyring: ["WITH_KEEPASSXC_UNLOCK_BEFORE_SEARCH": "true"]).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    #expect(try sandbox.ok(["password", "alice"]).standardOutput == "alice-pw\n")
    let lock = try sandbox.ok(["lock"])
    #expect(lock.standardError.contains("collection 'accounts'"), "named the same before and after: \(lock)")
    let read = try sandbox.run(["password", "alice"], timeout: 30)
    #expect(read.status == 7, "\(read)")
    #expect(read.standardError.contains("the keyring collection 'accounts' is locked; unlock the database in KeePassXC"), "\(read)")
    #expect(!read.standardError.contains("Seahorse"), "\(read)")
    let doctor = try sandbox.run(["doctor"], timeout: 30)
    #expect(doctor.standardOutput.contains("FAIL  collection    the keyring collection 'accounts' is locked"), "\(doctor)")
    #expect(doctor.standardOutput.contains("unlock the database in KeePassXC"), "\(doctor)")
    #expect(!read.standardError.contains("did not answer"))
    #expect(read.seconds < 8, "not the 20 s deadline of a search waiting for a prompt: \(read.seconds) s")
  }

  /// Right after the Secret Service integration is switched on, no group is exposed: doctor
  /// names it with the fix, and a store fails at once with the same words instead of opening
  /// KeePassXC's new-database wizard and timing out.
  @Test func aDatabaseThatExposesNoGroupIsNamedWithTheFix() throws {
    let world = try Fixture(.keepassxc, keyring: ["WITH_KEEPASSXC_EXPOSE": "none"]).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let doctor = try sandbox.run(["doctor"], timeout: 30)
    #expect(doctor.status == 7, "\(doctor)")
    #expect(doctor.standardOutput.contains("FAIL  collection    KeePassXC exposes no group of its database to the Secret Service"), "\(doctor)")
    #expect(doctor.standardOutput.contains("Secret Service Integration, expose a group"))
    let add = try sandbox.run(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n", timeout: 30)
    #expect(add.status == 7, "\(add)")
    #expect(add.standardError.hasPrefix("accounts: KeePassXC exposes no group of its database to the Secret Service; in KeePassXC: Database"), "\(add)")
    #expect(add.seconds < 8, "not the 20 s deadline of the wizard: \(add.seconds) s")
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.isEmpty == true, "nothing half-saved")
    let lock = try sandbox.run(["lock"], timeout: 30)
    #expect(lock.status == 7, "\(lock)")
    #expect(lock.standardError.hasPrefix("accounts: KeePassXC exposes no group of its database to the Secret Service; in KeePassXC"), "\(lock)")
    #expect(kill(sandbox.keyring.daemonProcessID, 0) == 0, "KeePassXC is still running")
  }

  /// KeePassXC crashes when two programs delete one entry at once; accounts never does that
  /// (the ledger deletes under the writers' lock): 8 concurrent removes of one account, 5
  /// rounds, every process returns and KeePassXC keeps running.
  @Test func concurrentRemovesOfOneAccountLeaveKeePassXCRunning() throws {
    let world = try Fixture(.keepassxc).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    for round in 0..<5 {
      try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw-\(round)\n")
      let outcomes = ThreadSafeList<String>()
      DispatchQueue.concurrentPerform(iterations: 8) { _ in
        do {
          let result = try sandbox.run(["remove", "alice"], timeout: 60)
          if !(result.status == 0 || (result.status == 3 && result.standardError.contains("no account 'alice'"))) {
            outcomes.append("\(result)")
          }
        } catch {
          outcomes.append("\(error)")
        }
      }
      #expect(outcomes.all == [], "round \(round)")
      #expect(kill(sandbox.keyring.daemonProcessID, 0) == 0, "KeePassXC died in round \(round)")
      #expect(try sandbox.invariantViolations() == [], "round \(round)")
    }
  }

  /// KeePassXC quits while its access prompt is open: libsecret never completes the call, but
  /// the command does not wait for it, nor for the prompt's deadline (121 s by default): it
  /// ends within seconds of the quit, whatever the deadline (60 s here), exit 7, with the index
  /// as it was or the account marked to settle.
  @Test func aProviderThatQuitsDuringAPromptCannotHangTheCommand() throws {
    for arguments in [["password", "alice"], ["remove", "alice"]] {
      let world = try Fixture(.keepassxc, keyring: ["WITH_KEEPASSXC_CONFIRM_ACCESS": "true"]).addingBackend("corp")
      defer { world.close() }
      let sandbox = world.sandbox
      try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
      let display = try String(contentsOfFile: sandbox.keyring.root + "/display", encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      // On a terminal with a display, accounts lets KeePassXC show its access prompt.
      let environment = sandbox.environment.merging(["DISPLAY": ":" + display, "ACCOUNTS_PROMPT_TIMEOUT": "60"]) { $1 }
      let monitor = try BusMonitor(sandbox)
      defer { monitor.stop() }
      let daemon = sandbox.keyring.daemonProcessID
      let killed = KillTime()
      // Once the command asked KeePassXC to show its prompt, KeePassXC quits.
      DispatchQueue.global().async {
        guard (try? monitor.waitForCall("Prompt", after: "Unlock")) != nil else { return }
        kill(daemon, SIGKILL)
        killed.set(Date())
      }
      let result = try runInTerminal(PackagePaths.accounts, arguments, environment: environment, steps: [], timeout: 90)
      let seconds = killed.get().map { Date().timeIntervalSince($0) }
      #expect(result.status == 7, "\(arguments): \(result)")
      #expect(result.standardOutput.contains("the Secret Service never answered"), "\(arguments): \(result)")
      #expect(result.standardOutput.contains("left the session bus"), "\(arguments): \(result)")
      #expect(!result.standardOutput.contains("CRITICAL"), "GLib's own warnings stay out of the terminal")
      #expect(seconds.map { $0 < 3 } == true, "\(arguments) ended \(String(describing: seconds)) s after KeePassXC quit")
      let index = try sandbox.indexJSON()
      let alice = (index["accounts"] as? [[String: Any]])?.first { $0["user"] as? String == "alice" }
      #expect(alice?["remembered"] as? Bool == true, "\(arguments): nothing half-done: \(index)")
      if arguments[0] == "remove" {
        #expect(index["unsettled"] as? [String] == ["alice@corp"], "a delete that may still land is settled later")
      }
    }
  }

  /// What remove cannot reach in KeePassXC is said where a user looks.
  @Test func removeSaysWhatKeePassXCKeepsAside() throws {
    let help = try runProcess(PackagePaths.accounts, ["remove", "--help"], environment: [:], timeout: 20)
    #expect(help.standardOutput.contains("Recycle Bin") && help.standardOutput.contains("history"), "\(help)")
    let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
    #expect(readme.contains("## KeePassXC") && readme.contains("Recycle Bin"))
  }

  /// KeePassXC is not running and another provider answers (D-Bus started gnome-keyring in its
  /// place): accounts says so, in `password` and `doctor` (not "no password ... deleted outside
  /// accounts?"), and stores and settles nothing there.
  @Test func anotherProviderAnsweringIsNamed() throws {
    let world = try Fixture(.keepassxc).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    kill(sandbox.keyring.daemonProcessID, SIGKILL)
    let gnome = try GnomeKeyringStandIn(sandbox)
    defer { gnome.stop() }

    let read = try sandbox.run(["password", "alice"], timeout: 30)
    #expect(read.status == 7, "\(read)")
    #expect(read.standardError.hasPrefix("accounts: the remembered secrets are in KeePassXC, but gnome-keyring provides the Secret Service now; start KeePassXC"), "\(read)")
    let doctor = try sandbox.run(["doctor"], timeout: 30)
    #expect(doctor.status == 7 && doctor.standardOutput.contains("FAIL  keyring"), "\(doctor)")
    #expect(doctor.standardOutput.contains("the remembered secrets are in KeePassXC"), "\(doctor)")
    let add = try sandbox.run(["add", "bob", "--remember", "--password-stdin"], stdin: "bob-pw\n", timeout: 30)
    #expect(add.status == 7, "\(add)")
    #expect(try sandbox.allKeyringItems() == [], "nothing went into gnome-keyring")
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.map { $0["account"] as? String } == ["alice@corp"])
    #expect(list.first?["remembered"] as? Bool == true, "alice's password is in KeePassXC, not gone")

    let adopted = try sandbox.run(
      ["add", "bob", "--remember", "--password-stdin"], stdin: "bob-pw\n",
      environment: ["ACCOUNTS_ADOPT_SECRET_SERVICE": "1"], timeout: 30)
    #expect(adopted.status == 0, "\(adopted)")
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.ok(["password", "bob"]).standardOutput == "bob-pw\n")
  }

  /// An old item of another provider is never taken for the secret: gnome-keyring answering
  /// with an item of alice's from an earlier era is named as the other provider, exit 7, not
  /// printed with exit 0. ACCOUNTS_ADOPT_SECRET_SERVICE=1 works in the read-only commands that
  /// recommend it, and moves config.json with the index.
  @Test func anOldItemOfAnotherProviderIsNeverPrinted() throws {
    let world = try Fixture(.keepassxc).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "kx-current\n")
    try sandbox.addBackend(
      "sig", adapter: "signed", settings: ["base_url=https://s.example", "app_id=1", "ver=1"],
      secret: ("private_key", "key"))
    kill(sandbox.keyring.daemonProcessID, SIGKILL)
    let gnome = try GnomeKeyringStandIn(sandbox)
    defer { gnome.stop() }
    let stale = try runProcess(
      "/usr/bin/secret-tool",
      ["store", "--label", "accounts: alice@corp password", "xdg:schema", "io.accounts.Secret", "backend", "corp",
       "account", "alice", "kind", "password"],
      environment: sandbox.environment, standardInput: "gk-stale", timeout: 20)
    #expect(stale.status == 0, "\(stale)")

    for arguments in [["password", "alice"], ["--json", "password", "alice"]] {
      let read = try sandbox.run(arguments, timeout: 30)
      #expect(read.status == 7, "\(arguments): \(read)")
      #expect(!read.standardOutput.contains("gk-stale"), "\(arguments): \(read)")
      #expect(read.standardError.hasPrefix("accounts: the remembered secrets are in KeePassXC, but gnome-keyring provides"), "\(read)")
    }

    let doctor = try sandbox.run(["doctor"], environment: ["ACCOUNTS_ADOPT_SECRET_SERVICE": "1"], timeout: 30)
    #expect(!doctor.standardOutput.contains("the remembered secrets are in KeePassXC"), "\(doctor)")
    #expect(try sandbox.indexJSON()["secret_service"] as? String == "gnome-keyring-daemon")
    #expect(try sandbox.configJSON()["secret_service"] as? String == "gnome-keyring-daemon", "config.json moves too")
    #expect(try sandbox.invariantViolations() == [])
    try sandbox.addBackend(
      "sig2", adapter: "signed", settings: ["base_url=https://s.example", "app_id=1", "ver=1"],
      secret: ("private_key", "key2"))
  }

  /// D-Bus-activated gnome-keyring without a default collection answers in KeePassXC's place:
  /// the change of provider is what is said (start KeePassXC), not gnome-keyring's missing
  /// collection; adopting it fails there and records nothing.
  @Test func aChangeOfProviderIsSaidBeforeTheNewOnesOwnTrouble() throws {
    let world = try Fixture(.keepassxc).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    kill(sandbox.keyring.daemonProcessID, SIGKILL)
    let gnome = try GnomeKeyringStandIn(sandbox, withDefaultCollection: false)
    defer { gnome.stop() }
    let read = try sandbox.run(["password", "alice"], timeout: 30)
    #expect(read.status == 7, "\(read)")
    #expect(read.standardError.hasPrefix("accounts: the remembered secrets are in KeePassXC"), "\(read)")
    #expect(!read.standardError.contains("Seahorse"), "\(read)")
    let adopt = try sandbox.run(
      ["add", "bob", "--remember", "--password-stdin"], stdin: "bob-pw\n",
      environment: ["ACCOUNTS_ADOPT_SECRET_SERVICE": "1"], timeout: 30)
    #expect(adopt.status == 7 && adopt.standardError.contains("no default collection"), "\(adopt)")
    let index = try sandbox.indexJSON()
    #expect(index["secret_service"] as? String == "keepassxc", "a failed adoption records nothing: \(index)")
    #expect((index["accounts"] as? [[String: Any]])?.first?["remembered"] as? Bool == true)
  }
}

/// gnome-keyring started on a sandbox's bus after its KeePassXC was killed, as D-Bus
/// activation would, but unlocked (with its own throwaway keyring) so that it answers.
final class GnomeKeyringStandIn {
  private let process: SpawnedProcess

  /// `withDefaultCollection: false`: as D-Bus activation starts it, no keyring unlocked, so it
  /// has no default collection.
  init(_ sandbox: Sandbox, withDefaultCollection: Bool = true) throws {
    let home = sandbox.keyring.root + "/gnome-home"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    process = try SpawnedProcess(
      "/usr/bin/gnome-keyring-daemon",
      ["--foreground"] + (withDefaultCollection ? ["--unlock"] : []) + ["--components=secrets"],
      environment: sandbox.environment.merging([
        "HOME": home, "XDG_DATA_HOME": home + "/.local/share", "XDG_RUNTIME_DIR": sandbox.keyring.root + "/run",
      ]) { $1 },
      standardInput: .pipe, standardError: .null)
    if withDefaultCollection { process.write(Data("stand-in".utf8)) }
    process.closeInput()
    let owned = waitUntil(seconds: 10) {
      let result = try? runProcess(
        "/usr/bin/dbus-send",
        ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
         "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:org.freedesktop.secrets"],
        environment: sandbox.environment, timeout: 5)
      return result?.standardOutput.contains("uint32 \(self.process.processIdentifier)") == true
    }
    guard owned else { throw CocoaError(.executableLoad) }
  }

  /// Ends the daemon this test started, by its pid.
  func stop() {
    process.signal(SIGKILL)
    process.waitUntilExit()
  }
}

/// When the test killed the provider, set from another thread.
final class KillTime: @unchecked Sendable {
  private let lock = NSLock()
  private var time: Date?

  func set(_ date: Date) { lock.withLock { time = date } }
  func get() -> Date? { lock.withLock { time } }
}
