import Foundation
import TestSupport
import Testing

/// `accounts env` evaluated by the real bash, zsh and fish, and `accounts shell` with SHELL set
/// to a script that reports what it was given; against the test backend and a real keyring.
@Suite(.serialized, .blocking) struct EnvShellTests {
  /// Runs `accounts env bob` inside each shell as the help says, with SHELL naming that shell
  /// and no --shell: the variables it sets are the session's, the token the keyring's.
  @Test func eachShellGetsTheSessionFromEval() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "bob"])
    let token = try #require(try world.keyringToken("bob"))
    _ = try world.seen()
    let report = #"printf '%s|%s|%s' "$ACCOUNTS_ACCOUNT" "$ACCOUNTS_USER_ID" "$ACCOUNTS_TOKEN""#
    let runs: [(String, [String])] = [
      ("/bin/bash", ["--norc", "--noprofile", "-c", #"eval "$("$0" env bob)" && "# + report]),
      ("/usr/bin/zsh", ["-f", "-c", #"eval "$("$0" env bob)" && "# + report]),
      ("/usr/bin/fish", ["--no-config", "-c", "$argv[1] env bob | source; and " + report.replacingOccurrences(of: "\"", with: "")]),
    ]
    for (shell, arguments) in runs {
      let result = try runProcess(
        shell, arguments + [PackagePaths.accounts],
        environment: sandbox.environment.merging(["SHELL": shell, "ACCOUNTS_USER_ID": "stale"]) { $1 }, timeout: 60)
      #expect(result.status == 0, "\(shell): \(result)")
      #expect(result.standardOutput == "bob@corp|1002|\(token)", "\(shell): \(result)")
      #expect(result.standardError.isEmpty, "\(shell): \(result)")
    }
    #expect(try world.seen().isEmpty, "env trusts the stored token's expiry, as token does")
    let printed = try sandbox.ok(["env", "bob", "--shell", "fish"])
    let unsetFish = "set -e ACCOUNTS_TOKEN_FILE; or true\nset -e ACCOUNTS_TOKEN_FILES; or true\n"
    #expect(
      printed.standardOutput
        == "set -gx ACCOUNTS_ACCOUNT 'bob@corp'\nset -gx ACCOUNTS_USER_ID '1002'\n\(unsetFish)"
        + "set -gx ACCOUNTS_TOKEN '\(token)'\n")
    let unknown = try sandbox.run(["env", "bob", "--shell", "tcsh"])
    #expect(unknown.status == 2 && unknown.standardOutput.isEmpty, "\(unknown)")
    #expect(try world.seen().isEmpty)
  }

  /// The default is bash's syntax when SHELL names no shell env knows.
  @Test func withoutAKnownShellItWritesBashSyntax() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    try world.sandbox.ok(["login", "bob"])
    let token = try #require(try world.keyringToken("bob"))
    for shell in [nil, "/bin/dash", "/usr/bin/tcsh"] {
      let result = try world.sandbox.ok(["env", "bob"], environment: shell.map { ["SHELL": $0] } ?? [:])
      #expect(
        result.standardOutput
          == "export ACCOUNTS_ACCOUNT='bob@corp'\nexport ACCOUNTS_USER_ID='1002'\nunset ACCOUNTS_TOKEN_FILE\n"
          + "unset ACCOUNTS_TOKEN_FILES\nexport ACCOUNTS_TOKEN='\(token)'\n")
      #expect(result.standardError.isEmpty)
    }
  }

  @Test func noSessionAndNothingRememberedIsExit3AtOnce() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let start = Date()
    let result = try world.sandbox.run(["env", "carol"])
    #expect(result.status == 3, "\(result)")
    #expect(result.standardOutput.isEmpty)
    #expect(Date().timeIntervalSince(start) < 10)
    #expect(try world.seen().isEmpty)
  }

  /// An expired session is logged in again once with the remembered password; the exports
  /// carry the new token.
  @Test func anExpiredSessionLogsInAgainOnce() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice"])
    let before = try #require(try world.keyringToken("alice"))
    try world.backend.control("expire", ["name": "alice"])
    _ = try world.seen()
    let result = try sandbox.ok(["env", "alice", "--check"])
    #expect(try world.seen() == ["check", "login"])
    let after = try #require(try world.keyringToken("alice"))
    #expect(after != before)
    #expect(result.standardOutput.hasSuffix("export ACCOUNTS_TOKEN='\(after)'\n"), "\(result)")
    #expect(!result.standardError.contains(after) && !result.standardError.contains(before))
  }

  /// A script in place of the shell: it reports its environment, its process id and its
  /// arguments, and exits 7.
  func reportingShell(_ sandbox: Sandbox) throws -> String {
    let path = sandbox.environment["HOME"]! + "/reporting-shell"
    try writeExecutable(
      """
      #!/bin/sh
      printf '%s\\n' "account=$ACCOUNTS_ACCOUNT" "user_id=$ACCOUNTS_USER_ID" "nested=$ACCOUNTS_SHELL" \
        "token=$ACCOUNTS_TOKEN" "pid=$$" "arguments=$#"
      exit 7

      """, to: path)
    return path
  }

  /// The shell replaces accounts (same process id), gets the session and ACCOUNTS_SHELL=1, and
  /// its exit status is the caller's.
  @Test func shellReplacesItselfWithSHELLAndTheSession() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "bob"])
    let token = try #require(try world.keyringToken("bob"))
    let shell = try reportingShell(sandbox)
    // The wrapper prints its process id and becomes accounts: the shell has the same id only
    // when accounts replaced itself with it. (No `&` and `wait`: the test runner's children
    // start with SIGCHLD blocked, and sh's `wait` then never returns.)
    let result = try runProcess(
      "/bin/sh", ["-c", #"echo "accounts=$$"; exec "$0" shell bob"#, PackagePaths.accounts],
      environment: sandbox.environment.merging(["SHELL": shell]) { $1 }, timeout: 60)
    #expect(result.status == 7, "the shell's exit status is the caller's: \(result)")
    let lines = result.standardOutput.split(separator: "\n").map(String.init)
    let pid = lines.first { $0.hasPrefix("accounts=") }?.dropFirst(9)
    #expect(
      lines == [
        "accounts=\(pid ?? "?")", "account=bob@corp", "user_id=1002", "nested=1", "token=\(token)",
        "pid=\(pid ?? "?")", "arguments=0",
      ], "\(result)")
    #expect(result.standardError.isEmpty, "\(result)")
  }

  /// Inside a shell that `accounts shell` started: refused with exit 2 before any network and
  /// before the shell runs, unless --force.
  @Test func aNestedShellIsRefusedUnlessForced() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "bob"])
    let shell = try reportingShell(sandbox)
    _ = try world.seen()
    let refused = try sandbox.run(["shell", "bob", "--check"], environment: ["SHELL": shell, "ACCOUNTS_SHELL": "1"])
    #expect(refused.status == 2, "\(refused)")
    #expect(refused.standardOutput.isEmpty, "the shell did not run")
    #expect(refused.standardError.contains("--force") && refused.standardError.contains("accounts env"), "\(refused)")
    #expect(try world.seen().isEmpty)
    let forced = try sandbox.run(["shell", "bob", "--force"], environment: ["SHELL": shell, "ACCOUNTS_SHELL": "1"])
    #expect(forced.status == 7 && forced.standardOutput.contains("account=bob@corp"), "\(forced)")
  }

  /// Without SHELL it is /bin/sh, which here reads its commands from stdin.
  @Test func withoutSHELLItIsBinSh() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "bob"])
    for shell in [nil, ""] {
      let result = try sandbox.run(
        ["shell", "bob"], stdin: "echo \"$0 $ACCOUNTS_SHELL $ACCOUNTS_ACCOUNT\"; exit 3\n",
        environment: shell.map { ["SHELL": $0] } ?? [:])
      #expect(result.status == 3 && result.standardOutput == "/bin/sh 1 bob@corp\n", "\(result)")
    }
    let missing = try sandbox.run(["shell", "bob"], environment: ["SHELL": "/nonexistent/shell"])
    #expect(missing.status == 1 && missing.standardError.contains("cannot start the shell"), "\(missing)")
    #expect(missing.standardOutput.isEmpty)
  }
}
