import AccountsContract
import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCLI

/// `accounts password USER`, run in process: the remembered password on stdout, exit 3 when
/// there is none, and 7 (never 3) when the keyring cannot say.
@Suite struct PasswordCommandTests {
  let world: TestEnvironment

  init() throws {
    world = try TestEnvironment()
    try world.addBackend()
    try world.addAccount("alice", password: "pa55 word")
    try world.addAccount("bob")
  }

  @Test func theRememberedPasswordIsPrintedWithANewline() {
    let result = world.run("password", "alice")
    #expect(result.status == .success)
    #expect(result.output == "pa55 word\n")
    #expect(result.messages.isEmpty)
  }

  @Test func withJSONItIsAnObjectNamingTheAccount() {
    let result = world.run("password", "alice", "--json")
    #expect(result.status == .success)
    #expect(result.output == "{\n  \"account\": \"alice@corp\",\n  \"password\": \"pa55 word\"\n}\n")
  }

  @Test func anAccountWithoutOneExits3SayingHowToRememberOne() {
    let result = world.run("password", "bob")
    #expect(result.status == .loginRequired)
    #expect(result.output.isEmpty)
    #expect(result.error?.message.contains("bob@corp") == true, "\(String(describing: result.error?.message))")
    #expect(result.error?.fix?.isEmpty == false)
  }

  /// A locked keyring is not "no password": exit 7, so that a script does not ask for a new one.
  @Test func aLockedKeyringExits7NotThe3OfNoPassword() {
    world.store.failAlways["lookup"] = .locked(collection: "Login")
    let result = world.run("password", "alice")
    #expect(result.status == .secretStoreUnavailable)
    #expect(result.output.isEmpty)
  }

  @Test func anUnknownAccountIsNamedWithASuggestion() {
    let result = world.run("password", "alcie")
    #expect(result.status == .loginRequired)
    #expect(result.error?.message == "no account 'alcie'")
    #expect(result.error?.fix == "did you mean 'alice'?")
    #expect(!world.store.calls.contains { $0.hasPrefix("lookup") }, "the keyring is not read")
  }
}
