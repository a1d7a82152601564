import Foundation
import TestSupport
import Testing

/// What `exec` hands on and what it says when it cannot: the session through CMD's environment
/// only, and CMD's exit status; a command that cannot run exits as `env(1)` and shells say it;
/// and a token no environment can carry is refused at login, not at every later `exec`, `env`,
/// `shell` or hook.
@Suite(.serialized, .blocking) struct ExecTests {
  @Test func execHandsTheSessionToTheCommandThroughItsEnvironmentOnly() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "bob"])
    let result = try sandbox.run(["exec", "bob", "--", "sh", "-c", "echo \"$ACCOUNTS_ACCOUNT $ACCOUNTS_USER_ID $ACCOUNTS_TOKEN\"; exit 7"])
    #expect(result.status == 7, "CMD's exit status is the caller's: \(result)")
    let token = try #require(try world.keyringToken("bob"))
    #expect(result.standardOutput == "bob@corp 1002 \(token)\n")
    // A signal that ends CMD ends the caller's child too: the shell sees 128 + SIGTERM.
    let signalled = try runProcess(
      "/bin/sh", ["-c", "\"$0\" exec --account bob -- sh -c 'kill -TERM $$'; echo \"status $?\"", PackagePaths.accounts],
      environment: sandbox.environment, timeout: 60)
    #expect(signalled.standardOutput == "status 143\n", "\(signalled)")
  }

  /// 127: no such command; 126: found but not runnable (a file without the execute bit, a
  /// directory). One line on stderr naming the command, nothing on stdout, no token left over.
  @Test func execExits127ForAMissingCommandAnd126ForOneThatCannotRun() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "bob"])
    let missing = try sandbox.run(["exec", "bob", "--", "no-such-command-here", "arg"])
    #expect(missing.status == 127, "\(missing)")
    #expect(missing.standardOutput.isEmpty)
    #expect(missing.standardError.hasPrefix("accounts: cannot run no-such-command-here: No such file or directory"), "\(missing)")
    #expect(missing.standardError.split(separator: "\n").count == 1, "\(missing)")

    let plainFile = sandbox.keyring.root + "/not-executable"
    try Data("echo hi\n".utf8).write(to: URL(fileURLWithPath: plainFile))
    chmod(plainFile, 0o644)
    for program in [plainFile, sandbox.keyring.root] {
      let refused = try sandbox.run(["exec", "bob", "--", program])
      #expect(refused.status == 126, "\(program): \(refused)")
      #expect(refused.standardError.hasPrefix("accounts: cannot run \(program): Permission denied"), "\(refused)")
      #expect(refused.standardError.contains("chmod +x"), "\(refused)")
    }
    let token = try #require(try world.keyringToken("bob"))
    #expect(!missing.standardError.contains(token))
  }

  /// Linux starts no program with an environment string over 128 KiB (NAME=VALUE and its NUL):
  /// a token of exactly the most ACCOUNTS_TOKEN can hold is stored and reaches the command; one
  /// byte more fails the login with exit 8 and the reason, and nothing is stored.
  @Test func aTokenTooLargeForAnEnvironmentIsRefusedAtLogin() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    let most = 128 * 1024 - "ACCOUNTS_TOKEN=".utf8.count - 1
    try world.backend.control("token-size", ["bytes": most + 1])
    let refused = try sandbox.run(["login", "alice", "--auto"])
    #expect(refused.status == 8, "\(refused)")
    #expect(refused.standardError.contains("ACCOUNTS_TOKEN can hold"), "\(refused)")
    #expect(refused.standardError.contains("\(most + 1) bytes"), "\(refused)")
    #expect(refused.standardError.split(separator: "\n").last?.hasPrefix("accounts: alice@corp: the login was refused") == true, "\(refused)")
    #expect(try world.keyringToken("alice") == nil, "nothing stored")
    #expect(!(try world.account("alice")["token"] is [String: Any]), "the index claims no token")
    #expect(world.slot == nil, "--auto took nothing")
    #expect(try sandbox.invariantViolations().isEmpty)

    try world.backend.control("token-size", ["bytes": most])
    try sandbox.ok(["login", "alice"])
    let token = try #require(try world.keyringToken("alice"))
    #expect(token.utf8.count == most)
    let ran = try sandbox.ok(["exec", "alice", "--", "sh", "-c", #"printf %s "${#ACCOUNTS_TOKEN}""#])
    #expect(ran.standardOutput == "\(most)", "\(ran)")
  }
}
