import Foundation
import TestSupport
import Testing

/// What the hostile review of `exec --refresh` found (issue 18): a rejected login is not sent
/// again, the backend's current settings are used, an account removed mid-run is let go, an
/// account that needs a typed code is refused up front, nested commands drop the outer token
/// file, and the token directory is checked before any login.
@Suite(.blocking) struct RefreshReviewTests {
  typealias World = RefreshTests.World

  /// Runs `accounts exec USER --refresh -- /bin/sh -c SCRIPT` with its stderr (the refresher's
  /// too) in the file `$ERRORS`, which SCRIPT may wait on; `$ACCOUNTS` is the binary. Returns
  /// the result and what stderr held.
  static func execRefresh(
    _ world: World, _ user: String, _ script: String, extra: [String] = []
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

  /// World with alice on a backend that also wants a TOTP code (otp_field), her seed kept.
  static func oneTimeCodeWorld(lifetime: Int, keepSeed: Bool = true) throws -> World {
    let world = try World(lifetime: lifetime, users: [])
    try world.backend.control("users", ["name": "alice", "password": "pw-alice", "otp": seed])
    try world.sandbox.ok(["backend", "set", "corp", "otp_field=otp"])
    try world.sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw-alice\n")
    try world.sandbox.ok(["otp", "set", "alice"], stdin: seed + "\n")
    try world.sandbox.ok(["login", "alice"])
    if !keepSeed { try world.sandbox.ok(["otp", "set", "alice", "--remove"]) }
    return world
  }

  func logins(_ world: World) throws -> Int {
    try world.backend.requests().filter { ($0["path"] as? String)?.hasSuffix("/login") == true }.count
  }

  @Test func aRejectedRenewalIsNotSentAgain() throws {
    let world = try Self.oneTimeCodeWorld(lifetime: 3)
    defer { world.close() }
    let before = try logins(world)
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
    #expect(try logins(world) == before + 1, "one rejected renewal, never sent again")
    #expect(try world.remembered("alice@corp") == true)
  }

  @Test func aMissingSeedIsTriedAgainNamingTheFixOnce() throws {
    let world = try Self.oneTimeCodeWorld(lifetime: 3)
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
    let world = try World(lifetime: 3)
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
    let world = try World(lifetime: 3)
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
    let world = try Self.oneTimeCodeWorld(lifetime: 3600, keepSeed: false)
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

  @Test func shellAndEnvInsideARefreshDropItsTokenFile() throws {
    let world = try World(lifetime: 3600, users: ["alice", "bob"])
    defer { world.close() }
    let report = world.root + "/report"
    try writeExecutable(
      "#!/bin/sh\necho \"$ACCOUNTS_ACCOUNT ${ACCOUNTS_TOKEN_FILE-unset} ${ACCOUNTS_TOKEN_FILES-unset}\"\n", to: report)
    let script = """
      SHELL="$0" "$ACCOUNTS" shell bob </dev/null
      "$ACCOUNTS" env bob --shell bash | grep -v ACCOUNTS_TOKEN=
      "$ACCOUNTS" env bob --shell fish | grep TOKEN_FILE
      """
    let result = try world.sandbox.run(
      ["exec", "alice", "--refresh", "--", "/bin/sh", "-c", script, report],
      environment: ["ACCOUNTS": PackagePaths.accounts, "ACCOUNTS_TOKEN_FILES": "/outer/file"])
    #expect(result.status == 0, "\(result)")
    let lines = result.standardOutput.split(separator: "\n")
    #expect(lines.first == "bob@corp unset unset", "\(lines)")
    #expect(lines.contains("unset ACCOUNTS_TOKEN_FILE") && lines.contains("unset ACCOUNTS_TOKEN_FILES"), "\(lines)")
    #expect(lines.contains("set -e ACCOUNTS_TOKEN_FILE; or true") && lines.contains("set -e ACCOUNTS_TOKEN_FILES; or true"), "\(lines)")
  }

  @Test func theTokenDirectoryIsCheckedBeforeAnyLogin() throws {
    let world = try World(lifetime: 3600)
    defer { world.close() }
    try world.sandbox.ok(["logout", "alice"])
    let before = try logins(world)
    let ran = world.root + "/ran"
    // Open to others above: refused before the login.
    let open = world.root + "/open-runtime"
    try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
    chmod(open, 0o777)
    let refused = try world.sandbox.run(
      ["exec", "alice", "--refresh", "--", "/bin/sh", "-c", "touch \"$0\"", ran],
      environment: ["XDG_RUNTIME_DIR": open])
    #expect(refused.status == 1, "\(refused)")
    #expect(try logins(world) == before, "no login for a command that cannot run")
    // Readable by others: refused too, naming the fix.
    try FileManager.default.createDirectory(atPath: world.tokenDirectory, withIntermediateDirectories: true)
    chmod(world.tokenDirectory, 0o755)
    let readable = try world.sandbox.run(["exec", "alice", "--refresh", "--", "/bin/sh", "-c", "touch \"$0\"", ran])
    #expect(readable.status == 1 && readable.standardError.contains("chmod 700"), "\(readable)")
    #expect(try logins(world) == before)
    #expect(!FileManager.default.fileExists(atPath: ran), "CMD did not run")
  }

  @Test func theRefreshCheckHintOffersOnlyAcceptedValues() throws {
    let world = try World(lifetime: 3600)
    defer { world.close() }
    let result = try world.sandbox.run(["exec", "alice", "--refresh", "--refresh-check", "1", "--", "true"])
    #expect(result.status == 2, "\(result)")
    #expect(!result.standardError.contains("0, 500ms") && result.standardError.contains("1s"), "\(result)")
  }
}
