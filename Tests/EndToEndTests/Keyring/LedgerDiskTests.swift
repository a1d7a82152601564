import Foundation
import TestSupport
import Testing

/// The ledger on a disk that is full, fills up half-way or is read-only: nothing changes in the
/// keyring or the index (a keyring change whose index write failed is taken back), and the
/// message names the fix. Each test mounts a small tmpfs on the state directory, in a mount
/// namespace of its own: it needs root, and is skipped without.
@Suite(.blocking) struct LedgerDiskTests {
  /// A full disk: nothing changes, in the keyring or the index, and the message names the fix.
  @Test(.enabled(if: canMountTmpfs, "needs root and a private mount namespace")) func aFullDiskChangesNothing() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
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
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
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
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
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
    items=$(stdbuf -oL secret-tool search --all xdg:schema io.accounts.Secret 2>&1 | awk -F' = ' 'function item() { if (k == "password") print a "@" b; a = b = k = "" } /^\[/{item()} /^attribute.account /{a=$2} /^attribute.backend /{b=$2} /^attribute.kind /{k=$2} END{item()}' | sort)
    claims=$("$ACCOUNTS" list --json | python3 -c 'import json,sys; print("\n".join(sorted(a["account"] for a in json.load(sys.stdin) if a["remembered"])))')
    if [ "$items" = "$claims" ]; then echo "invariant: ok"; else echo "invariant: keyring [$items] index [$claims]"; fi
    """#
  }
}
