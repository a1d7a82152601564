import Foundation
import TestSupport
import Testing

/// `exec --refresh` and `lease --refresh` with the built binary, a real keyring and the test
/// backend issuing tokens that live a few seconds: the token file is renewed before the session
/// ends (or at the next check, when the backend ends it early) and the new token works; the
/// file and the refresher are gone when the command ends; a shell or env inside hands on no
/// token file. When a renewal cannot be made: RefreshFailureTests.
@Suite(.blocking) struct RefreshTests {
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
    let world = try Fixture.pool(["alice"], tokenLifetime: 3)
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
    // The renewal was recorded as any login: the keyring holds the token CMD saw. (Not
    // `accounts token`: on a loaded machine the 3-second session may have ended by then, and it
    // would log in afresh.)
    let token = try world.keyringToken("alice")
    #expect(token.map { $0 + "\n" } == result.standardOutput, "\(token ?? "none") \(result.standardOutput)")
  }

  @Test func withoutRefreshNoTokenFileIsHandedOnNotEvenAnOuterOne() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3600)
    defer { world.close() }
    let result = try world.sandbox.run(
      ["exec", "alice", "--", "/bin/sh", "-c", "echo \"${ACCOUNTS_TOKEN_FILE-unset} ${ACCOUNTS_TOKEN_FILES-unset}\""],
      environment: ["ACCOUNTS_TOKEN_FILE": "/outer/bob.token", "ACCOUNTS_TOKEN_FILES": "/outer/bob.token"])
    #expect(result.status == 0, "\(result)")
    #expect(result.standardOutput == "unset unset\n", "an outer --refresh's file holds another account's token")
    #expect(!FileManager.default.fileExists(atPath: world.tokenDirectory))
    #expect(world.refreshers().isEmpty)
  }

  @Test func aSessionTheBackendEndsEarlyIsRenewedAtTheNextCheck() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3600)
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

  @Test func aCommandKilledOutrightTakesItsFileAndTheRefresherWithIt() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3600)
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

  @Test func leaseRefreshKeepsEveryLeasedAccountLive() throws {
    let world = try Fixture.pool(["qa1", "qa2"], tokenLifetime: 3)
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

  @Test func shellAndEnvInsideARefreshDropItsTokenFile() throws {
    let world = try Fixture.pool(["alice", "bob"], tokenLifetime: 3600)
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

  @Test func theRefreshCheckHintOffersOnlyAcceptedValues() throws {
    let world = try Fixture.pool(["alice"], tokenLifetime: 3600)
    defer { world.close() }
    let result = try world.sandbox.run(["exec", "alice", "--refresh", "--refresh-check", "1", "--", "true"])
    #expect(result.status == 2, "\(result)")
    #expect(!result.standardError.contains("0, 500ms") && result.standardError.contains("1s"), "\(result)")
  }
}

extension Fixture {
  /// Where `exec --refresh` keeps its token files.
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
}
