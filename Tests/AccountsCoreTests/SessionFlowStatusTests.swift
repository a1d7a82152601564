import AccountsSystem
import Testing

@testable import AccountsCore

/// Behaviours of the session flow pinned by what a user sees (the exit status, how often the
/// keyring is asked), not by which error value was thrown.
extension SessionFlowTests {
  /// "Expired again right after the re-login" ends the command with exit 5 (SPEC §3), as any
  /// ended session does: a status pinned by the number a script sees.
  @Test func expiredAgainRightAfterTheReloginHasExitStatus5() throws {
    let world = try World()
    world.host.script = [.sessionExpired(message: "e1"), FakeAdapterHost.loggedIn("T2"), .sessionExpired(message: "e2")]
    let error = try #require(throws: SessionFailure.self) { try perform(.request, world) }
    #expect(error.status == .sessionEnded)
    #expect(error.status.rawValue == 5)
    #expect(world.host.operations == ["call", "login", "call"])
  }
}
