import Foundation
import TestSupport
import Testing

/// The keyring and the index agree after every command, whatever happens (SPEC §2): races
/// made deterministic by holding the writers' lock and stopping processes between their steps,
/// killed writers, and many writers at once, each checked against the real keyring. Full and
/// read-only disks: LedgerDiskTests.
@Suite(.blocking) struct KeyringIndexAgreementTests {
  /// A `passwd` that runs while `remove` waits for the writers' lock: its new password goes with
  /// the account (a `remove` that swept the keyring before it took the lock would leave it
  /// behind).
  @Test(arguments: SecretServiceProvider.providerBlind) func aRemoveWaitingForTheLockCannotOrphanAPasswdThatRanMeanwhile(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "first-pw\n")
    let lock = try HeldLock(sandbox.indexPath + ".lock")
    let remove = try BackgroundAccounts(sandbox, ["remove", "alice"])
    try remove.waitUntilWaitingFor(lockPath: sandbox.indexPath + ".lock")
    remove.stop()
    lock.release()
    try sandbox.ok(["passwd", "alice", "--password-stdin"], stdin: "second-pw\n")
    remove.resume()
    let removed = try remove.finish()
    #expect(removed.status == 0, "\(removed)")
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.allKeyringItems().filter { $0.account == "alice" } == [])
  }

  /// An `add --remember` that waits for the lock while another add and a remove of the same
  /// name run: it saves the account with its password in the keyring (one that stored the
  /// password before it took the lock would find it swept, and save the account as remembered
  /// with no password).
  @Test(arguments: SecretServiceProvider.providerBlind) func anAddWaitingForTheLockCannotClaimAPasswordSweptMeanwhile(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "bob"])  // the index and its lock file exist
    let lock = try HeldLock(sandbox.indexPath + ".lock")
    let add = try BackgroundAccounts(sandbox, ["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    try add.waitUntilWaitingFor(lockPath: sandbox.indexPath + ".lock")
    add.stop()
    lock.release()
    try sandbox.ok(["add", "alice"])
    try sandbox.ok(["remove", "alice"])
    add.resume()
    let added = try add.finish()
    #expect(added.status == 0, "\(added)")
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.ok(["password", "alice"]).standardOutput == "alice-pw\n")
  }

  /// A writer that cannot get the lock gives up after 15 s without having touched the keyring:
  /// no password is stored and left behind.
  @Test func aLockTimeOutChangesNothing() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "bob"])
    let lock = try HeldLock(sandbox.indexPath + ".lock")
    let result = try sandbox.run(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n", timeout: 40)
    lock.release()
    #expect(result.status == 1, "\(result)")
    #expect(result.standardError.hasPrefix("accounts: another accounts process has held \(sandbox.indexPath).lock for 15 s"), "\(result)")
    #expect(try sandbox.allKeyringItems() == [])
    #expect(try sandbox.invariantViolations() == [])
  }

  /// A writer waiting for the lock re-reads the index under it: a change made meanwhile (by a
  /// writer that held the lock) is kept.
  @Test func aWriterReReadsTheIndexUnderTheLock() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice"])
    let lock = try HeldLock(sandbox.indexPath + ".lock")
    let add = try BackgroundAccounts(sandbox, ["add", "bob"])
    try add.waitUntilWaitingFor(lockPath: sandbox.indexPath + ".lock")
    // What another writer holding the lock would do: replace the index with one more account.
    let index = try String(contentsOfFile: sandbox.indexPath, encoding: .utf8)
    let carol = index.replacingOccurrences(of: "\"user\": \"alice\"", with: "\"user\": \"carol\"")
    let merged = index.replacingOccurrences(
      of: "\"accounts\": [\n", with: "\"accounts\": [\n" + accountObject(carol) + ",\n")
    try merged.write(toFile: sandbox.indexPath + ".new", atomically: false, encoding: .utf8)
    #expect(rename(sandbox.indexPath + ".new", sandbox.indexPath) == 0)
    lock.release()
    #expect(try add.finish().status == 0)
    let users = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]]).compactMap { $0["user"] as? String }
    #expect(users == ["alice", "bob", "carol"], "carol, added while bob waited, is kept")
  }

  /// Every index write goes to a temporary file that is fsynced before it is renamed into place.
  @Test func theIndexIsSyncedBeforeItIsRenamedIntoPlace() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let log = sandbox.keyring.root + "/steps.log"
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n", environment: Interposer.environment(log: log))
    let steps = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
    let temporary = sandbox.indexPath + ".tmp"
    let renames = steps.indices.filter { steps[$0] == "rename \(temporary) \(sandbox.indexPath)" }
    #expect(renames.count == 2, "intent, then the claim: \(steps)")
    var previous = -1
    for rename in renames {
      let synced = steps[(previous + 1)..<rename].contains("fsync \(temporary)")
      #expect(synced, "every rename follows an fsync of the temporary file: \(steps)")
      previous = rename
    }
  }

  /// A writer killed after the keyring changed but before the index recorded it leaves the
  /// account unsettled; the next command that uses the keyring settles it, and doctor says so
  /// meanwhile.
  @Test(arguments: SecretServiceProvider.allCases) func aWriterKilledBetweenTheKeyringAndTheIndexIsSettledByTheNextOne(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    // add: the intent is in place (rename 1), the password stored; stopped before the claim.
    let add = try BackgroundAccounts(
      sandbox, ["add", "carol", "--remember", "--password-stdin"], stdin: "carol-pw\n",
      environment: Interposer.environment(stop: "before:2"))
    try add.waitUntilStopped()
    add.kill()
    #expect(try sandbox.indexJSON()["unsettled"] as? [String] == ["carol@corp"])
    #expect(try sandbox.invariantViolations() == ["the keyring holds a password of carol@corp, which the index does not name"])
    let doctor = try sandbox.run(["doctor"])
    #expect(doctor.standardOutput.contains("1 account to settle"), "\(doctor)")

    // remove settles carol first; then its intent is in place and alice's secrets deleted;
    // it is stopped before she is dropped.
    let remove = try BackgroundAccounts(sandbox, ["remove", "alice"], environment: Interposer.environment(stop: "before:2"))
    try remove.waitUntilStopped()
    remove.kill()
    #expect(try sandbox.indexJSON()["unsettled"] as? [String] == ["alice@corp"])
    #expect(try sandbox.allKeyringItems().filter { $0.account == "carol" } == [])

    try sandbox.ok(["add", "dave", "--remember", "--password-stdin"], stdin: "dave-pw\n")
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.indexJSON()["unsettled"] == nil)
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.compactMap { $0["user"] as? String } == ["alice", "dave"], "carol was never saved")
    #expect(list.first?["remembered"] as? Bool == false, "alice's password is gone: the index says so")
  }

  /// A command that fails after an earlier one was interrupted does not clear the earlier one's
  /// mark, or the index would claim a password that is gone for good.
  @Test(arguments: SecretServiceProvider.allCases) func aFailedCommandKeepsTheMarkAnInterruptedOneLeft(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    let remove = try BackgroundAccounts(sandbox, ["remove", "alice"], environment: Interposer.environment(stop: "before:2"))
    try remove.waitUntilStopped()
    remove.kill()  // alice's password is deleted; the index still claims it, and marks her unsettled
    let daemon = sandbox.keyring.daemonProcessID
    kill(daemon, SIGSTOP)
    let hung = try sandbox.run(["remove", "alice"], environment: ["ACCOUNTS_SECRET_TIMEOUT": "1"], timeout: 30)
    kill(daemon, SIGCONT)
    #expect(hung.status == 7, "\(hung)")
    #expect(hung.seconds < 3, "one wait for a keyring that does not answer, not two: \(hung.seconds) s")
    #expect(try sandbox.indexJSON()["unsettled"] as? [String] == ["alice@corp"])
    let password = try sandbox.run(["password", "alice"])
    #expect(password.status == 3)
    #expect(password.standardError.contains("a command that changed it was interrupted or failed"), "\(password)")
    try sandbox.ok(["add", "bob", "--remember", "--password-stdin"], stdin: "bob-pw\n")  // settles alice
    #expect(try sandbox.invariantViolations() == [])
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.first { $0["user"] as? String == "alice" }?["remembered"] as? Bool == false)
  }

  /// Secrets of an interrupted command never come back under another one, for accounts (a
  /// later plain `add` must not turn remembered) and backends.
  @Test(arguments: SecretServiceProvider.allCases) func anInterruptedCommandsSecretsNeverComeBack(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let add = try BackgroundAccounts(
      sandbox, ["add", "dave", "--remember", "--password-stdin"], stdin: "aborted-secret\n",
      environment: Interposer.environment(stop: "before:2"))
    try add.waitUntilStopped()
    add.kill()
    try sandbox.ok(["add", "dave"])
    try sandbox.ok(["add", "erin", "--remember", "--password-stdin"], stdin: "erin-pw\n")  // settles dave
    #expect(try sandbox.run(["password", "dave"]).status == 3)
    #expect(try sandbox.allKeyringItems().filter { $0.account == "dave" } == [])

    let backend = try BackgroundAccounts(
      sandbox, ["backend", "add", "h2", "--adapter", "hmac", "--set", "base_url=https://h2.example", "--secret-stdin", "hmac_key"],
      stdin: "aborted-key\n", environment: Interposer.environment(stop: "before:2"))
    try backend.waitUntilStopped()
    backend.kill()
    try sandbox.addBackend("h2", settings: ["base_url=https://h2.example"])
    #expect(try sandbox.allKeyringItems().filter { $0.backend == "h2" } == [])
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.configJSON()["unsettled"] == nil)
  }

  /// `backend remove --force` racing `add`: no account is left whose backend is gone, and whose
  /// password a later backend of the same name would inherit.
  @Test(arguments: SecretServiceProvider.providerBlind) func noAccountIsSavedForABackendBeingRemoved(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "bob", "--remember", "--password-stdin"], stdin: "bob-pw\n")
    // Stopped with both locks held, after forgetting bob (the index's first rename).
    let remove = try BackgroundAccounts(
      sandbox, ["backend", "remove", "corp", "--force"], environment: Interposer.environment(stop: "after:1"))
    try remove.waitUntilStopped()
    let add = try BackgroundAccounts(sandbox, ["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    try add.waitUntilWaitingFor(lockPath: sandbox.indexPath + ".lock")
    remove.resume()
    #expect(try remove.finish().status == 0)
    let added = try add.finish()
    #expect(added.status == 2, "\(added)")
    #expect(added.standardError.contains("no backend 'corp'"), "\(added)")
    try sandbox.addBackend("corp")
    #expect(try sandbox.run(["password", "alice"]).status == 3)
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.allKeyringItems().filter { !$0.account.isEmpty } == [])
  }

  /// 100 concurrent adds, removes, passwds and lists on a few names, in rounds; after each
  /// round the index and the real keyring agree, and every remembered password reads back.
  @Test(arguments: SecretServiceProvider.providerBlind) func aHundredConcurrentWritersKeepTheKeyringAndTheIndexInStep(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let names = ["ann", "ben", "cat", "dan"]
    let failures = ThreadSafeList<String>()
    var generator = SplitMix(seed: 8)
    for round in 0..<10 {
      // Name and operation drawn independently: every name meets every kind of writer.
      let plan = (0..<10).map { _ in (names[Int(generator.next() % 4)], Int(generator.next() % 5)) }
      DispatchQueue.concurrentPerform(iterations: plan.count) { step in
        let (name, kind) = plan[step]
        let password = "pw-\(round)-\(step)"
        let arguments: [String]
        var stdin: String?
        switch kind {
        case 0: (arguments, stdin) = (["add", name, "--remember", "--password-stdin"], password + "\n")
        case 1: arguments = ["remove", name]
        case 2: (arguments, stdin) = (["passwd", name, "--password-stdin"], password + "\n")
        case 3: arguments = ["add", name]
        default: arguments = ["list"]
        }
        do {
          let result = try sandbox.run(arguments, stdin: stdin, timeout: 60)
          // Already saved (1) and no such account (3) are answers; anything else is a failure.
          if ![0, 1, 3].contains(result.status) || (result.status == 1 && !result.standardError.contains("already saved")) {
            failures.append("\(arguments): \(result)")
          }
        } catch {
          failures.append("\(arguments): \(error)")
        }
      }
      #expect(failures.all == [], "round \(round)")
      let violations = try sandbox.invariantViolations()
      #expect(violations == [], "round \(round)")
      #expect(try sandbox.indexJSON()["unsettled"] == nil, "round \(round)")
    }
    let items = try sandbox.allKeyringItems()
    for item in items where item.kind == "password" {
      #expect(try sandbox.ok(["password", item.account]).standardOutput == item.secret + "\n")
    }
  }
}

/// One account's object from an index text, for splicing into another.
private func accountObject(_ index: String) -> String {
  let start = index.range(of: "    {\n")!.lowerBound
  let end = index.range(of: "\n    }", range: start..<index.endIndex)!.upperBound
  return String(index[start..<end])
}
