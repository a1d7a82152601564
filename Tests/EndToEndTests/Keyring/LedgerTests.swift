import Foundation
import TestSupport
import Testing

/// The keyring and the index agree after every command, whatever happens (SPEC §2): races
/// made deterministic by holding the writers' lock and stopping processes between their steps,
/// full and read-only disks, killed writers, and many writers at once, each checked against the
/// real keyring.
@Suite(.blocking) struct LedgerTests {
  func sandbox(_ provider: SecretServiceProvider = .gnomeKeyring) throws -> Sandbox {
    let sandbox = try Sandbox(provider: provider)
    try sandbox.addBackend("corp")
    return sandbox
  }

  /// The remove/passwd race of the hostile review: `remove` used to sweep the keyring, then wait
  /// for the lock; a `passwd` in between stored a new password that outlived the account.
  @Test(arguments: SecretServiceProvider.providerBlind) func aRemoveWaitingForTheLockCannotOrphanAPasswdThatRanMeanwhile(_ provider: SecretServiceProvider) throws {
    let sandbox = try sandbox(provider)
    defer { sandbox.close() }
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

  /// The add/remove race: `add --remember` used to store the password, then wait for the lock;
  /// meanwhile another add and a remove of the same name swept it; then the first add saved
  /// the account as remembered, with no password in the keyring.
  @Test(arguments: SecretServiceProvider.providerBlind) func anAddWaitingForTheLockCannotClaimAPasswordSweptMeanwhile(_ provider: SecretServiceProvider) throws {
    let sandbox = try sandbox(provider)
    defer { sandbox.close() }
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

  /// A writer that cannot get the lock gives up after 15 s without having touched the keyring
  /// (it used to store the password first, and leave it behind).
  @Test func aLockTimeOutChangesNothing() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
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
    let sandbox = try sandbox()
    defer { sandbox.close() }
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
    let sandbox = try sandbox()
    defer { sandbox.close() }
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
    let sandbox = try sandbox(provider)
    defer { sandbox.close() }
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

  /// The review's finding: a command that fails after an earlier one was interrupted must not
  /// clear the earlier one's mark, or the index claims a password that is gone for good.
  @Test(arguments: SecretServiceProvider.allCases) func aFailedCommandKeepsTheMarkAnInterruptedOneLeft(_ provider: SecretServiceProvider) throws {
    let sandbox = try sandbox(provider)
    defer { sandbox.close() }
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

  /// The review's finding: secrets of an interrupted command never come back under another
  /// one, for accounts (a later plain `add` must not turn remembered) and backends.
  @Test(arguments: SecretServiceProvider.allCases) func anInterruptedCommandsSecretsNeverComeBack(_ provider: SecretServiceProvider) throws {
    let sandbox = try sandbox(provider)
    defer { sandbox.close() }
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
    try sandbox.ok(["backend", "add", "h2", "--adapter", "plain", "--set", "base_url=https://h2.example"])
    #expect(try sandbox.allKeyringItems().filter { $0.backend == "h2" } == [])
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.configJSON()["unsettled"] == nil)
  }

  /// The review's finding: `backend remove --force` racing `add` left an account whose backend
  /// was gone, whose password a later backend of the same name inherited.
  @Test(arguments: SecretServiceProvider.providerBlind) func noAccountIsSavedForABackendBeingRemoved(_ provider: SecretServiceProvider) throws {
    let sandbox = try sandbox(provider)
    defer { sandbox.close() }
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

  /// A full disk: nothing changes, in the keyring or the index, and the message names the fix.
  @Test(.enabled(if: canMountTmpfs, "needs root and a private mount namespace")) func aFullDiskChangesNothing() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let state = sandbox.environment["XDG_STATE_HOME"]!
    let script = """
      set -u
      mount -t tmpfs -o size=128k tmpfs "$XDG_STATE_HOME" || exit 99
      accounts() { "$ACCOUNTS" "$@"; }
      printf 'first-pw\\n' | accounts add alice --remember --password-stdin 2>/dev/null
      dd if=/dev/zero of="$XDG_STATE_HOME/fill" bs=4k 2>/dev/null
      printf 'second-pw\\n' | accounts passwd alice --password-stdin; echo "passwd=$?"
      printf 'carol-pw\\n' | accounts add carol --remember --password-stdin; echo "add=$?"
      accounts remove alice; echo "remove=$?"
      rm -f "$XDG_STATE_HOME/fill"
      echo "password=$(accounts password alice)"
      accounts list --json | tr -d ' \\n'; echo
      \(sandbox.invariantScript)
      """
    let result = try sandbox.inPrivateMounts(script)
    try #require(result.status != 99, "cannot mount a tmpfs here: \(result)")
    let out = result.standardOutput
    #expect(out.contains("passwd=1\n") && out.contains("add=1\n") && out.contains("remove=1\n"), "\(result)")
    #expect(result.standardError.contains("cannot write \(state)/accounts/accounts.json: No space left on device; free some space on the file system that holds \(state)/accounts"), "\(result.standardError)")
    #expect(!result.standardError.contains("owner and permissions"))
    #expect(out.contains("password=first-pw\n"), "the old password is kept: \(out)")
    #expect(out.contains("\"user\":\"alice\"") && !out.contains("carol"), "\(out)")
    #expect(out.contains("invariant: ok"), "\(out)")
  }

  /// The disk fills between the keyring change and the index write that records it: the
  /// keyring change is taken back (a replaced password is put back, a new one deleted).
  @Test(.enabled(if: canMountTmpfs, "needs root and a private mount namespace")) func aDiskThatFillsMidWayIsUndone() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let script = """
      set -u
      mount -t tmpfs -o size=128k tmpfs "$XDG_STATE_HOME" || exit 99
      accounts() { "$ACCOUNTS" "$@"; }
      stopped() { while [ "$(cut -d' ' -f3 /proc/$1/stat)" != T ]; do sleep 0.02; done; }
      printf 'first-pw\\n' | accounts add alice --remember --password-stdin 2>/dev/null
      # Stopped once the intent is recorded (after rename 1); the disk fills; then it goes on.
      printf 'second-pw\\n' | LD_PRELOAD="$STEPS" STEPS_STOP=after:1 "$ACCOUNTS" passwd alice --password-stdin &
      pid=$!; stopped $pid
      dd if=/dev/zero of="$XDG_STATE_HOME/fill" bs=4k 2>/dev/null
      kill -CONT $pid; wait $pid; echo "passwd=$?"
      rm -f "$XDG_STATE_HOME/fill"
      printf 'carol-pw\\n' | LD_PRELOAD="$STEPS" STEPS_STOP=after:1 "$ACCOUNTS" add carol --remember --password-stdin &
      pid=$!; stopped $pid
      dd if=/dev/zero of="$XDG_STATE_HOME/fill" bs=4k 2>/dev/null
      kill -CONT $pid; wait $pid; echo "add=$?"
      rm -f "$XDG_STATE_HOME/fill"
      echo "password=$(accounts password alice)"
      accounts list --json | tr -d ' \\n'; echo
      \(sandbox.invariantScript)
      """
    let result = try sandbox.inPrivateMounts(script, environment: ["STEPS": Interposer.path])
    try #require(result.status != 99, "cannot mount a tmpfs here: \(result)")
    let out = result.standardOutput
    #expect(out.contains("passwd=1\n") && out.contains("add=1\n"), "\(result)")
    #expect(result.standardError.contains("No space left on device"), "\(result.standardError)")
    #expect(out.contains("password=first-pw\n"), "the replaced password was put back: \(result)")
    #expect(!out.contains("carol"), "\(out)")
    #expect(out.contains("invariant: ok"), "\(out)")
  }

  /// A read-only file system: nothing changes, and the message says it is read-only.
  @Test(.enabled(if: canMountTmpfs, "needs root and a private mount namespace")) func aReadOnlyDiskChangesNothing() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let script = """
      set -u
      mount -t tmpfs -o size=128k tmpfs "$XDG_STATE_HOME" || exit 99
      printf 'first-pw\\n' | "$ACCOUNTS" add alice --remember --password-stdin 2>/dev/null
      mount -o remount,ro "$XDG_STATE_HOME" || exit 99
      printf 'second-pw\\n' | "$ACCOUNTS" passwd alice --password-stdin; echo "passwd=$?"
      printf 'carol-pw\\n' | "$ACCOUNTS" add carol --remember --password-stdin; echo "add=$?"
      echo "password=$("$ACCOUNTS" password alice)"
      \(sandbox.invariantScript)
      """
    let result = try sandbox.inPrivateMounts(script)
    try #require(result.status != 99, "cannot mount a tmpfs here: \(result)")
    #expect(result.standardOutput.contains("passwd=1\n") && result.standardOutput.contains("add=1\n"), "\(result)")
    #expect(result.standardError.contains("Read-only file system; the file system that holds"), "\(result.standardError)")
    #expect(result.standardOutput.contains("password=first-pw\n"))
    #expect(result.standardOutput.contains("invariant: ok"), "\(result)")
  }

  /// 100 concurrent adds, removes, passwds and lists on a few names, in rounds; after each
  /// round the index and the real keyring agree, and every remembered password reads back.
  @Test(arguments: SecretServiceProvider.providerBlind) func aHundredConcurrentWritersKeepTheKeyringAndTheIndexInStep(_ provider: SecretServiceProvider) throws {
    let sandbox = try sandbox(provider)
    defer { sandbox.close() }
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

/// Whether this process may mount a tmpfs in a mount namespace of its own (root, with the
/// capability): the full- and read-only-disk tests need it, and skip without it.
let canMountTmpfs: Bool = {
  guard getuid() == 0 else { return false }
  let result = try? runProcess(
    "/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
    environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"], timeout: 20)
  return result?.status == 0
}()


/// One account's object from an index text, for splicing into another.
private func accountObject(_ index: String) -> String {
  let start = index.range(of: "    {\n")!.lowerBound
  let end = index.range(of: "\n    }", range: start..<index.endIndex)!.upperBound
  return String(index[start..<end])
}


extension Sandbox {
  /// Runs a bash script in a mount namespace of its own (so that the tmpfs it mounts goes away
  /// with it), with $ACCOUNTS the built binary and the sandbox's environment.
  func inPrivateMounts(_ script: String, environment extra: [String: String] = [:]) throws -> ProcessResult {
    try runProcess(
      "/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/bash", "-c", script],
      environment: environment.merging(extra) { $1 }.merging(["ACCOUNTS": PackagePaths.accounts]) { $1 },
      timeout: 90)
  }

  /// A shell snippet that prints "invariant: ok" when every password item of ours in the
  /// keyring belongs to an account the index says is remembered and the other way round (the
  /// index may be on a private mount the test process cannot see).
  var invariantScript: String {
    #"""
    items=$(secret-tool search --all xdg:schema io.accounts.Secret 2>&1 | awk -F' = ' '/^attribute.account/{a=$2} /^attribute.backend/{b=$2} /^attribute.kind/{if ($2=="password") print a "@" b}' | sort)
    claims=$("$ACCOUNTS" list --json | python3 -c 'import json,sys; print("\n".join(sorted(a["account"] for a in json.load(sys.stdin) if a["remembered"])))')
    if [ "$items" = "$claims" ]; then echo "invariant: ok"; else echo "invariant: keyring [$items] index [$claims]"; fi
    """#
  }
}
