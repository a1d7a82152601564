import Foundation
import TestSupport
import Testing

/// `exec --refresh` and `lease --refresh` (issue 18) with the built binary, a real keyring and
/// the test backend issuing tokens that live a few seconds: the token file is renewed before
/// the session ends and the new token works, a failure is said and the command runs on, and
/// the file and the refresher are gone when the command ends.
@Suite(.blocking) struct RefreshTests {
  /// A sandbox with backend corp (session check at `check`) on a test backend whose tokens last
  /// `lifetime` seconds, and `users` saved with remembered passwords, tagged qa.
  final class World {
    let sandbox: Sandbox
    let backend: TestBackend

    init(lifetime: Int, users: [String] = ["alice"]) throws {
      sandbox = try Sandbox()
      backend = try TestBackend(
        arguments: ["--token-lifetime", String(lifetime)] + users.flatMap { ["--user", "\($0):pw-\($0)"] })
      try sandbox.ok([
        "backend", "add", "corp", "--adapter", "plain", "--set", "base_url=\(backend.url)/plain/plain",
        "--set", "allow_insecure_transport=true", "--set", "check_path=check",
      ])
      for user in users {
        try sandbox.ok(["add", user, "--remember", "--password-stdin"], stdin: "pw-\(user)\n")
        try sandbox.ok(["tag", user, "qa"])
      }
    }

    func close() {
      backend.stop()
      sandbox.close()
    }

    var root: String { sandbox.keyring.root }
    var tokenDirectory: String { sandbox.environment["XDG_RUNTIME_DIR"]! + "/accounts/tokens" }

    /// The token refreshers running for this sandbox (their environment names its root).
    func refreshers() -> [String] {
      let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      return processes.filter { pid in
        guard pid.allSatisfy(\.isNumber),
          let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
          String(decoding: command, as: UTF8.self).contains("__token-refresher"),
          let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
        else { return false }
        return String(decoding: environment, as: UTF8.self).contains(root)
      }
    }

    func remembered(_ account: String) throws -> Bool? {
      let listed = try sandbox.json(["list", "--json"]) as? [[String: Any]] ?? []
      return listed.first { $0["account"] as? String == account }?["remembered"] as? Bool
    }
  }

  /// Waits (15 s at most) until the file "$1" holds a token other than "$2", then checks it with
  /// the backend ("$3") and prints it. Exit 93 when none came, 92 when the backend refused it.
  static let awaitNewToken = """
    awaitNewToken() {
      i=0
      while [ $i -lt 300 ]; do
        t=$(cat "$1")
        if [ -n "$t" ] && [ "$t" != "$2" ]; then
          curl -sf -H "AuthorisedToken: $t" "$3/plain/plain/check" >/dev/null || exit 92
          printf '%s\\n' "$t"
          return 0
        fi
        sleep 0.05; i=$((i+1))
      done
      exit 93
    }
    """

  @Test func execRenewsTheTokenFileBeforeTheSessionEndsAndRemovesItWithTheCommand() throws {
    let world = try World(lifetime: 3)
    defer { world.close() }
    let script = Self.awaitNewToken + """

      [ -n "$ACCOUNTS_TOKEN_FILE" ] || exit 90
      printf '%s %s\\n' "$ACCOUNTS_TOKEN_FILE" "$(stat -c %a "$ACCOUNTS_TOKEN_FILE")" > "$0"
      [ "$(cat "$ACCOUNTS_TOKEN_FILE")" = "$ACCOUNTS_TOKEN" ] || exit 91
      awaitNewToken "$ACCOUNTS_TOKEN_FILE" "$ACCOUNTS_TOKEN" "$1"
      exit 7
      """
    let result = try world.sandbox.run(
      ["exec", "alice", "--refresh", "--", "/bin/sh", "-c", script, world.root + "/seen", world.backend.url])
    #expect(result.status == 7, "CMD saw a new, live token, and its exit status is the caller's: \(result)")
    #expect(!result.standardError.contains("cannot renew"), "\(result.standardError)")
    let seen = try String(contentsOfFile: world.root + "/seen", encoding: .utf8).split(separator: " ")
    let file = String(seen[0])
    #expect(file.hasPrefix(world.tokenDirectory + "/"), "\(file)")
    #expect(seen[1] == "600\n", "the token file is 0600")
    #expect(!FileManager.default.fileExists(atPath: file), "the file went with the command")
    #expect(try FileManager.default.contentsOfDirectory(atPath: world.tokenDirectory).isEmpty)
    let mode = try FileManager.default.attributesOfItem(atPath: world.tokenDirectory)[.posixPermissions] as? Int
    #expect(mode == 0o700)
    #expect(world.refreshers().isEmpty, "the refresher went with the command")
    // The renewal was recorded as any login: `accounts token` gives the token CMD saw.
    let token = try world.sandbox.ok(["token", "alice"]).standardOutput
    #expect(token == result.standardOutput, "\(token) \(result.standardOutput)")
  }

  @Test func withoutRefreshNoTokenFileIsHandedOnNotEvenAnOuterOne() throws {
    let world = try World(lifetime: 3600)
    defer { world.close() }
    let result = try world.sandbox.run(
      ["exec", "alice", "--", "/bin/sh", "-c", "echo \"${ACCOUNTS_TOKEN_FILE-unset} ${ACCOUNTS_TOKEN_FILES-unset}\""],
      environment: ["ACCOUNTS_TOKEN_FILE": "/outer/bob.token", "ACCOUNTS_TOKEN_FILES": "/outer/bob.token"])
    #expect(result.status == 0, "\(result)")
    #expect(result.standardOutput == "unset unset\n", "an outer --refresh's file holds another account's token")
    #expect(!FileManager.default.fileExists(atPath: world.tokenDirectory))
    #expect(world.refreshers().isEmpty)
  }

  @Test func withoutARememberedPasswordRefreshExits3BeforeTheCommandRuns() throws {
    let world = try World(lifetime: 3600)
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
    #expect(leased.standardError.contains("skipped bob@corp: --refresh needs the remembered password"), "\(leased)")
  }

  @Test func aFailedRenewalIsSaidOnStderrAndTheCommandKeepsRunning() throws {
    let world = try World(lifetime: 3)
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

  @Test func aSessionTheBackendEndsEarlyIsRenewedAtTheNextCheck() throws {
    let world = try World(lifetime: 3600)
    defer { world.close() }
    // Renewal at 80 % would be 48 minutes away: only the check (every second) can see it.
    let script = Self.awaitNewToken + """

      : > "$0"
      awaitNewToken "$ACCOUNTS_TOKEN_FILE" "$ACCOUNTS_TOKEN" "$1"
      """
    let ready = world.root + "/ready"
    let running = try BackgroundAccounts(
      world.sandbox,
      ["exec", "alice", "--refresh", "--refresh-check", "1s", "--", "/bin/sh", "-c", script, ready, world.backend.url])
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: ready) })
    try world.backend.control("expire", ["name": "alice"])
    let result = try running.finish()
    #expect(result.status == 0, "\(result)")
    #expect(world.refreshers().isEmpty)
  }

  @Test func aSessionTakenOverIsNotLoggedInAgainUnderExec() throws {
    let world = try World(lifetime: 3600)
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

  @Test func aCommandKilledOutrightTakesItsFileAndTheRefresherWithIt() throws {
    let world = try World(lifetime: 3600)
    defer { world.close() }
    let ready = world.root + "/ready"
    // CMD is the process `accounts exec` became: its pid is the one started here.
    let running = try BackgroundAccounts(
      world.sandbox,
      ["exec", "alice", "--refresh", "--", "/bin/sh", "-c", "printf %s \"$ACCOUNTS_TOKEN_FILE\" > \"$0\"; exec sleep 60", ready],
      environment: ["ACCOUNTS_TOKEN": "an-outer-exec-s-token"])
    #expect(waitUntil(seconds: 30) { ((try? String(contentsOfFile: ready, encoding: .utf8)) ?? "").hasSuffix(".token") })
    let file = try String(contentsOfFile: ready, encoding: .utf8)
    let token = try String(contentsOfFile: file, encoding: .utf8)
    let refreshers = world.refreshers()
    #expect(refreshers.count == 1)
    // Told the account and the file, never a secret: not in its arguments, nor its environment.
    for pid in refreshers {
      let seen = ["cmdline", "environ"].map {
        String(decoding: FileManager.default.contents(atPath: "/proc/\(pid)/\($0)") ?? Data(), as: UTF8.self)
      }
      #expect(!token.isEmpty && seen.allSatisfy { !$0.contains(token) && !$0.contains("an-outer-exec-s-token") })
      #expect(seen[1].contains(world.root), "the environment was read")
    }
    running.kill()
    #expect(waitUntil(seconds: 20) { !FileManager.default.fileExists(atPath: file) }, "SIGKILL ends CMD, and the file goes")
    #expect(waitUntil(seconds: 20) { world.refreshers().isEmpty })
  }

  @Test func aTokenDirectoryOthersCouldChangeIsRefused() throws {
    let world = try World(lifetime: 3600)
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

  @Test func leaseRefreshKeepsEveryLeasedAccountLive() throws {
    let world = try World(lifetime: 3, users: ["qa1", "qa2"])
    defer { world.close() }
    let script = Self.awaitNewToken + """

      set -- "$1" $ACCOUNTS_TOKEN_FILES
      [ $# -eq 3 ] && [ "$2" = "$ACCOUNTS_TOKEN_FILE" ] || exit 95
      printf '%s\\n' "$2" "$3" > "$0"
      first=$(cat "$2"); second=$(cat "$3")
      [ "$first" = "$ACCOUNTS_TOKEN" ] || exit 91
      awaitNewToken "$2" "$first" "$1" >/dev/null
      awaitNewToken "$3" "$second" "$1" >/dev/null
      """
    let result = try world.sandbox.run(
      ["lease", "--tag", "qa", "--count", "2", "--refresh", "--", "/bin/sh", "-c", script, world.root + "/files",
       world.backend.url])
    #expect(result.status == 0, "both files were renewed with live tokens: \(result)")
    let files = try String(contentsOfFile: world.root + "/files", encoding: .utf8).split(separator: "\n")
    #expect(files.count == 2 && files.allSatisfy { !FileManager.default.fileExists(atPath: String($0)) })
    #expect(world.refreshers().isEmpty)
    #expect((try world.sandbox.json(["leases", "--json"]) as? [Any])?.isEmpty == true, "the lease ended with CMD")
  }
}
