@testable import AccountsContract
import AccountsSystem
import TestDoubles
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

  /// `status` over three accounts whose tokens expired: the first re-login reads the remembered
  /// password and the keyring times out; the other accounts are not checked (each would wait
  /// the keyring's deadline again), and say so with the same status.
  @Test func statusAsksAKeyringThatTimedOutOnceNotOncePerAccount() throws {
    let world = try World(tokenExpired: true)
    var ids = [alice]
    for user in ["bob", "carol"] {
      let id = AccountID(user: user, backend: "corp")
      try world.ledger.add(Account(id: id, addedAt: Self.start), password: secret("pw"))
      try world.ledger.record(
        .loggedIn(remember: false, takeSlot: false), for: id, token: secret("T-\(user)"),
        login: LoginRecord(expiresAt: Self.start.adding(seconds: -60), session: ["userId": "1001"]),
        at: Self.start.adding(seconds: -100))
      ids.append(id)
    }
    let timeout = SecretStoreError.timedOut(operation: "lookup", seconds: 5)
    world.store.failAlways["lookup"] = timeout
    let entries = try world.flow.status(of: ids, jobs: 1)
    let lookups = world.store.calls.filter { $0.hasPrefix("lookup ") }
    #expect(lookups == ["lookup alice@corp password"], "asked once: \(world.store.calls)")
    #expect(world.host.operations.isEmpty, "no login without the password")
    #expect(entries.map(\.id) == ids)
    for (position, entry) in entries.enumerated() {
      guard case .error(let status, let message) = entry.outcome else {
        Issue.record("\(entry.id): \(entry.outcome)")
        continue
      }
      #expect(status == timeout.status, "\(entry.id)")
      #expect(message.hasPrefix("not checked: ") == (position > 0), "\(entry.id): \(message)")
    }
  }
}
