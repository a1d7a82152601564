import Foundation
import TestSupport
import Testing

/// `exec --refresh` and `lease --refresh` when a renewal cannot be made. A command that could
/// not be kept live does not run: no remembered password, a code to type, a token directory
/// open to others (checked before any login). A renewal the backend rejects is said once,
/// naming the fix, and never sent again; a missing seed or an unreachable base_url is tried
/// again, with the backend's current settings; a session taken over is not logged in again; an
/// account removed mid-run is let go.
@Suite(.blocking) struct RefreshFailureTests {
  /// Runs `accounts exec USER --refresh -- /bin/sh -c SCRIPT` with its stderr (the refresher's
  /// too) in the file `$ERRORS`, which SCRIPT may wait on; `$ACCOUNTS` is the binary. Returns
  /// the result and what stderr held.
  static func execRefresh(
    _ world: Fixture, _ user: String, _ script: String, extra: [String] = []
  ) throws -> (ProcessResult, [Substring]) {
    let errors = world.root + "/errors-\(UUID().uuidString)"
    let wrapper = #""$ACCOUNTS" exec "$0" --refresh "$@" -- /bin/sh -c "$SCRIPT" 2>"$ERRORS""#
    let result = try runProcess(
      "/bin/sh", ["-c", wrapper, user] + extra,
      environment: world.sandbox.environment.merging([
        "ACCOUNTS": PackagePaths.accounts, "ERRORS": errors, "SCRIPT": script, "URL": world.backend.url,
      ]) { $1 }, timeout: 90)
    let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
    return (result, said.split(separator: "\n"))
  }

  /// Waits (20 s at most) until stderr has a line with "$1"; else exit 93.
  static let awaitSaid = """
    awaitSaid() {
      i=0
      while ! grep -qF -- "$1" "$ERRORS"; do
        [ $i -lt 400 ] || exit 93
        sleep 0.05; i=$((i+1))
      done
    }
    """

  static let seed = "JBSWY3DPEHPK3PXP"

  @Test func aRejectedRenewalIsNotSentAgain() throws {
    let world = try Fixture.aliceWithACode(tokenLifetime: 3)
    defer { world.close() }
    let before = try world.backend.logins()
    // Another seed: the renewal's code is wrong, and the backend rejects the login.
    let script = Self.awaitSaid + """

      printf '%s\\n' KRUGS4ZANFZSAYJAONSWG4TF | "$ACCOUNTS" otp set alice >/dev/null 2>&1 || exit 90
      awaitSaid 'accounts: --refresh'
      """
    let (result, said) = try Self.execRefresh(world, "alice", script)
    #expect(result.status == 0, "\(result) \(said)")
    let expected =
      "accounts: --refresh: alice@corp: the backend rejected the login; no more renewals: check the password "
      + "(`accounts passwd alice`) and the TOTP seed (`accounts otp set alice`), then start the command again"
    #expect(said.filter { $0.hasPrefix("accounts: --refresh") }.map(String.init) == [expected], "\(said)")
    #expect(try world.backend.logins() == before + 1, "one rejected renewal, never sent again")
    #expect(try world.remembered("alice@corp") == true)
  }

  @Test func aMissingSeedIsTriedAgainNamingTheFixOnce() throws {
    let world = try Fixture.aliceWithACode(tokenLifetime: 3)
    defer { world.close() }
    // Nothing is sent without a seed: tried again, and a seed set meanwhile is picked up.
    let script = Self.awaitSaid + """

      "$ACCOUNTS" otp set alice --remove >/dev/null 2>&1 || exit 90
      awaitSaid 'accounts: --refresh'
      printf '%s\\n' \(Self.seed) | "$ACCOUNTS" otp set alice >/dev/null 2>&1 || exit 91
      awaitSaid 'alice@corp is live again'
      """
    let (result, said) = try Self.execRefresh(world, "alice", script)
    #expect(result.status == 0, "\(result) \(said)")
    let first = said.first { $0.hasPrefix("accounts: --refresh") }.map(String.init)
    #expect(
      first == "accounts: --refresh: cannot renew the session of alice@corp: no TOTP seed kept for the one-time code "
        + "its login needs: `accounts otp set alice` keeps one; trying again in 1 s", "\(said)")
  }

  @Test func eachRenewalUsesTheBackendsCurrentSettings() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3)
    defer { world.close() }
    let script = Self.awaitSaid + """

      "$ACCOUNTS" backend set corp base_url=http://127.0.0.1:9/plain/plain >/dev/null || exit 90
      awaitSaid 'cannot renew the session of alice@corp'
      "$ACCOUNTS" backend set corp "base_url=$URL/plain/plain" >/dev/null || exit 91
      awaitSaid 'alice@corp is live again'
      """
    let (result, said) = try Self.execRefresh(world, "alice", script)
    #expect(result.status == 0, "the renewal failed on the new base_url, then worked on the old: \(result) \(said)")
  }

  @Test func anAccountRemovedMidRunIsLetGo() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3)
    defer { world.close() }
    let script = Self.awaitSaid + """

      "$ACCOUNTS" remove alice >/dev/null 2>&1 || exit 90
      awaitSaid 'accounts: --refresh'
      """
    let (result, said) = try Self.execRefresh(world, "alice", script)
    #expect(result.status == 0, "\(result) \(said)")
    let lines = said.filter { $0.hasPrefix("accounts: --refresh") }
    #expect(lines == ["accounts: --refresh: alice@corp was removed; its token file is no longer renewed"], "\(said)")
  }

  @Test func anAccountThatNeedsATypedCodeIsRefusedBeforeTheCommand() throws {
    let world = try Fixture.aliceWithACode(tokenLifetime: 3600, keepingSeed: false)
    defer { world.close() }
    let ran = world.root + "/ran"
    let result = try world.sandbox.run(["exec", "alice", "--refresh", "--", "/bin/sh", "-c", "touch \"$0\"", ran])
    #expect(result.status == 3, "\(result)")
    #expect(
      result.standardError.contains("--refresh logs in again on its own: alice@corp needs a kept TOTP seed")
        && result.standardError.contains("`accounts otp set alice`"), "\(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: ran), "CMD did not run")
    let leased = try world.sandbox.run(["lease", "alice", "--refresh", "--", "true"])
    #expect(leased.status == 3 && leased.standardError.contains("needs a kept TOTP seed"), "\(leased)")
  }

  @Test func theTokenDirectoryIsCheckedBeforeAnyLogin() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3600)
    defer { world.close() }
    try world.sandbox.ok(["logout", "alice"])
    let before = try world.backend.logins()
    let ran = world.root + "/ran"
    // Open to others above: refused before the login.
    let open = world.root + "/open-runtime"
    try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
    chmod(open, 0o777)
    let refused = try world.sandbox.run(
      ["exec", "alice", "--refresh", "--", "/bin/sh", "-c", "touch \"$0\"", ran],
      environment: ["XDG_RUNTIME_DIR": open])
    #expect(refused.status == 1, "\(refused)")
    #expect(try world.backend.logins() == before, "no login for a command that cannot run")
    // Readable by others: refused too, naming the fix.
    try FileManager.default.createDirectory(atPath: world.tokenDirectory, withIntermediateDirectories: true)
    chmod(world.tokenDirectory, 0o755)
    let readable = try world.sandbox.run(["exec", "alice", "--refresh", "--", "/bin/sh", "-c", "touch \"$0\"", ran])
    #expect(readable.status == 1 && readable.standardError.contains("chmod 700"), "\(readable)")
    #expect(try world.backend.logins() == before)
    #expect(!FileManager.default.fileExists(atPath: ran), "CMD did not run")
  }

  @Test func withoutARememberedPasswordRefreshExits3BeforeTheCommandRuns() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3600)
    defer { world.close() }
    try world.sandbox.ok(["add", "bob"])
    try world.backend.control("users", ["name": "bob", "password": "pw-bob"])
    try world.sandbox.ok(["login", "bob", "--password-stdin"], stdin: "pw-bob\n")
    let ran = world.root + "/ran"
    let result = try world.sandbox.run(["exec", "bob", "--refresh", "--", "/bin/sh", "-c", "touch \"$0\"", ran])
    #expect(result.status == 3, "\(result)")
    #expect(result.standardError.contains("`accounts passwd bob@corp`"), "the fix: \(result.standardError)")
    #expect(result.standardError.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: ran), "CMD did not run")
    let misuse = try world.sandbox.run(["exec", "alice", "--refresh-check", "5s", "--", "true"])
    #expect(misuse.status == 2 && misuse.standardError.contains("add --refresh"), "\(misuse)")
    let detached = try world.sandbox.run(["lease", "alice", "--ttl", "1m", "--refresh"])
    #expect(detached.status == 2 && detached.standardError.contains("give the command to run"), "\(detached)")
    // A lease skips an account it could not keep live, and takes another.
    let leased = try world.sandbox.run(
      ["lease", "bob", "alice", "--refresh", "--", "/bin/sh", "-c", "echo \"$ACCOUNTS_ACCOUNT\""])
    #expect(leased.status == 0 && leased.standardOutput == "alice@corp\n", "\(leased)")
    #expect(leased.standardError.contains("skipped bob@corp: --refresh needs a refresh token or the remembered password"), "\(leased)")
  }

  @Test func aFailedRenewalIsSaidOnStderrAndTheCommandKeepsRunning() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3)
    defer { world.close() }
    let script = """
      : > "$0"
      i=0; while [ ! -e "$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
      [ -e "$1" ] || exit 94
      exit 5
      """
    let ready = world.root + "/ready"
    let running = try BackgroundAccounts(
      world.sandbox, ["exec", "alice", "--refresh", "--", "/bin/sh", "-c", script, ready, world.root + "/go"])
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: ready) })
    #expect(world.refreshers().count == 1, "the refresher runs beside CMD")
    // Changed elsewhere: the renewal is rejected, and the rules forget the remembered password.
    try world.backend.control("password", ["name": "alice", "password": "changed-elsewhere"])
    #expect(waitUntil(seconds: 20) { (try? world.remembered("alice@corp")) == false }, "the renewal was tried")
    FileManager.default.createFile(atPath: world.root + "/go", contents: nil)
    let result = try running.finish()
    #expect(result.status == 5, "CMD ran to its end, its status the caller's: \(result)")
    let lines = result.standardError.split(separator: "\n").filter { $0.hasPrefix("accounts: --refresh") }
    // Not sent again: the same password would be rejected again, towards a lockout.
    let said =
      "accounts: --refresh: alice@corp: the backend rejected the login; no more renewals: check the password "
      + "(`accounts passwd alice`), then start the command again"
    #expect(lines.map(String.init) == [said], "one line, naming the account and the fix: \(lines)")
    #expect(!result.standardError.contains("pw-alice") && !result.standardError.contains("changed-elsewhere"))
    #expect(world.refreshers().isEmpty)
  }

  @Test func aSessionTakenOverIsNotLoggedInAgainUnderExec() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3600)
    defer { world.close() }
    let script = """
      : > "$0"
      i=0; while [ ! -e "$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
      """
    let ready = world.root + "/ready"
    let running = try BackgroundAccounts(
      world.sandbox,
      ["exec", "alice", "--refresh", "--refresh-check", "1s", "--", "/bin/sh", "-c", script, ready, world.root + "/go"])
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: ready) })
    try world.backend.control("takeover", ["name": "alice", "family": "plain"])
    // The next check hears it, and the rules end the session here (SPEC §4).
    let ended = waitUntil(seconds: 20) {
      let listed = (try? world.sandbox.json(["list", "--json"]) as? [[String: Any]]) ?? nil
      return (listed?.first?["token"] as? [String: Any])?["state"] as? String == "none"
    }
    #expect(ended)
    FileManager.default.createFile(atPath: world.root + "/go", contents: nil)
    let result = try running.finish()
    #expect(result.status == 0, "\(result)")
    let lines = result.standardError.split(separator: "\n").filter { $0.hasPrefix("accounts: --refresh: ") }
    #expect(lines.count == 1, "said once, never tried again: \(lines)")
    #expect(lines.first?.contains("alice@corp: signed in elsewhere") == true, "\(lines)")
    #expect(lines.first?.hasSuffix("its token file is no longer renewed") == true, "\(lines)")
    let logins = try world.backend.requests().filter { ($0["path"] as? String)?.hasSuffix("/login") == true }
    #expect(logins.count == 1, "exec's own login only")
  }

  @Test func aTokenDirectoryOthersCouldChangeIsRefused() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3600)
    defer { world.close() }
    try FileManager.default.createDirectory(atPath: world.tokenDirectory, withIntermediateDirectories: true)
    chmod(world.tokenDirectory, 0o777)
    let ran = world.root + "/ran"
    let result = try world.sandbox.run(["exec", "alice", "--refresh", "--", "/bin/sh", "-c", "touch \"$0\"", ran])
    #expect(result.status == 1, "\(result)")
    #expect(result.standardError.contains("writable by group or others"), "\(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: ran), "CMD did not run")
    #expect(try FileManager.default.contentsOfDirectory(atPath: world.tokenDirectory).isEmpty, "no token written there")
    #expect(world.refreshers().isEmpty)
  }
}

extension Fixture {
  /// alice on corp, whose login also wants a TOTP code (otp_field), her password remembered,
  /// her seed kept (or, not `keepingSeed`, removed once she is logged in), on a test backend
  /// whose tokens last `tokenLifetime` seconds.
  static func aliceWithACode(tokenLifetime: Int, keepingSeed: Bool = true) throws -> Fixture {
    let world = try Fixture.pool([], tokenLifetime: tokenLifetime)
    try world.backend.control("users", ["name": "alice", "password": "pw-alice", "otp": RefreshFailureTests.seed])
    try world.sandbox.ok(["backend", "set", "corp", "otp_field=otp"])
    try world.saving("alice", password: "pw-alice")
    try world.sandbox.ok(["otp", "set", "alice"], stdin: RefreshFailureTests.seed + "\n")
    try world.sandbox.ok(["login", "alice"])
    if !keepingSeed { try world.sandbox.ok(["otp", "set", "alice", "--remove"]) }
    return world
  }
}
