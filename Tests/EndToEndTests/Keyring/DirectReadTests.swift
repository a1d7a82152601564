import Foundation
import TestSupport
import Testing

/// A readable secret is read over the bus directly, in an encrypted session, without loading
/// the private library (libsecret, GLib): seen in the dynamic loader's own log. Whatever is
/// not plainly readable still takes libsecret's path, which reports, unlocks or prompts.
@Suite(.blocking) struct DirectReadTests {
  @Test(arguments: SecretServiceProvider.allCases)
  func aRememberedPasswordIsReadWithoutLibsecret(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pässwörd with spaces ✓\n")

    let (read, loaded) = try sandbox.runNotingPrivateLibrary(["password", "alice"])
    #expect(read.status == 0, "\(read)")
    #expect(read.standardOutput == "pässwörd with spaces ✓\n")
    #expect(!loaded, "the read took the direct path")

    // Not readable at once (locked): libsecret's path, which says so (exit 7, never "none").
    try sandbox.ok(["lock"])
    let (locked, loadedWhenLocked) = try sandbox.runNotingPrivateLibrary(["password", "alice"])
    #expect(locked.status == 7, "\(locked)")
    #expect(locked.standardOutput.isEmpty)
    #expect(loadedWhenLocked, "a locked keyring is libsecret's to report")
  }

  @Test func aPasswordThatIsNotThereTakesLibsecretsPath() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    let clear = try runProcess(
      "/usr/bin/secret-tool", ["clear", "backend", "corp", "account", "alice", "kind", "password"],
      environment: sandbox.environment, timeout: 20)
    #expect(clear.status == 0, "\(clear)")
    let (result, loaded) = try sandbox.runNotingPrivateLibrary(["password", "alice"])
    #expect(result.status == 3, "\(result)")
    #expect(result.standardError.contains("deleted outside accounts"), "\(result.standardError)")
    #expect(loaded)
  }

  /// The bare session is kept for the command's later reads, and each read gets its own
  /// ACCOUNTS_SECRET_TIMEOUT, as each libsecret call does: a read that comes more than that
  /// after the first (here: the password of a re-login, after a slow backend said the token
  /// expired) is not "the keyring did not answer".
  @Test func aLaterReadOfTheSameCommandHasAWaitOfItsOwn() throws {
    let world = try Fixture().serving().addingServedBackend("corp", settings: ["check_path=check"])
      .saving("alice", password: "123456")
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    try sandbox.ok(["switch", "alice"])
    try backend.control("expire", ["name": "alice"])
    // Every backend answer takes longer than the keyring may: the token's read and the
    // password's are farther apart than one ACCOUNTS_SECRET_TIMEOUT.
    try backend.delay(seconds: 1.5)
    let result = try sandbox.run(
      ["request", "GET", "me"], environment: ["ACCOUNTS_TOKEN_CACHE": "0", "ACCOUNTS_SECRET_TIMEOUT": "1"])
    #expect(result.status == 0, "\(result)")
    #expect(result.standardOutput.contains("\"path\""), "\(result)")
  }
}
