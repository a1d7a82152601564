@testable import AccountsContract
import AccountsSystem
import Glibc
import Synchronization
import TestDoubles
import Testing

@testable import AccountsCore

/// `status`: every account's session checked at once, each token read with its own session,
/// the keyring asked once, at most `--jobs` operations at a time.
extension SessionFlowTests {

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

  @Test func statusReadsEveryTokenAtOnceAndAskesASilentKeyringOnce() throws {
    let world = try World()
    _ = try world.flow.status(of: [alice], jobs: 4)
    #expect(!world.store.calls.contains("lookup alice@corp token"), "read with lookupAll: \(world.store.calls)")
    world.store.failNext["lookupAll"] = .timedOut(operation: "search", seconds: 5)
    #expect(throws: SecretStoreError.timedOut(operation: "search", seconds: 5)) { try world.flow.status(of: [alice], jobs: 4) }
  }

  @Test func statusRunsAtMostJobsOperationsAtOnceAndDoesRunThemConcurrently() throws {
    let world = try World()
    var ids: [AccountID] = []
    for index in 0..<12 {
      let id = AccountID(user: "user\(index)", backend: "corp")
      _ = try world.flow.logIn(id, password: .given(secret("p")), remember: false, takeSlot: false)
      ids.append(id)
    }
    let gauge = Gauge()
    world.host.fallback = { _ in
      gauge.enter()
      usleep(30_000)
      gauge.leave()
      return .ok(AdapterSuccess())
    }
    let entries = try world.flow.status(of: ids, jobs: 3)
    #expect(entries.count == 12)
    #expect(entries.allSatisfy { if case .valid = $0.outcome { true } else { false } })
    #expect(gauge.maximum == 3)
  }

  /// Where `status`'s other party renews alice's session: just before `status` reads every
  /// token, or once it has read them (before it reads alice's session from the index again).
  enum RenewalStep: String, CaseIterable, CustomTestStringConvertible {
    case beforeTheTokensAreRead, afterTheTokensAreRead
    var testDescription: String { rawValue }
  }

  /// `status` reads the index, every token at once, then each account's session: a session
  /// renewed in between is never paired with the other session's token. Whichever session the
  /// entry names (told by its expiry), the token is that session's, and the backend was asked
  /// about that token.
  @Test(arguments: RenewalStep.allCases)
  func statusNeverPairsASessionWithAnotherSessionsToken(_ step: RenewalStep) throws {
    let world = try World()  // T1, until start + 1 h
    let sessions: [(expiresAt: Timestamp, token: String)] = [
      (Self.start.adding(seconds: 3600), "T1"), (Self.start.adding(seconds: 7200), "T9"),
    ]
    world.host.script = [FakeAdapterHost.loggedIn("T9", expiresIn: 7200)]
    let renew = {
      world.store.beforeLookupAll = nil
      world.store.afterLookupAll = nil
      do {
        _ = try world.flow.logIn(self.alice, password: .given(secret("pw")), remember: false, takeSlot: false)
      } catch {
        Issue.record("the renewal failed: \(error)")
      }
    }
    switch step {
    case .beforeTheTokensAreRead: world.store.beforeLookupAll = renew
    case .afterTheTokensAreRead: world.store.afterLookupAll = renew
    }
    let entry = try world.flow.status(of: [alice], jobs: 1)[0]
    #expect(world.host.calls.first == "login alice pw", "renewed while status ran")
    guard case .valid(let session) = entry.outcome else {
      Issue.record("\(entry.outcome)")
      return
    }
    let named = try #require(sessions.first { $0.expiresAt == session.expiresAt }, "a session status never saw")
    #expect(text(session.token) == named.token, "the session until \(named.expiresAt) has token \(named.token)")
    #expect(world.host.calls.last == "check alice \(named.token)", "\(world.host.calls)")
  }
}

/// Counts how many callers are inside at once.
final class Gauge: @unchecked Sendable {
  private var current = 0
  private(set) var maximum = 0
  private let lock = Mutex(())
  func enter() { lock.withLock { _ in current += 1; maximum = max(maximum, current) } }
  func leave() { lock.withLock { _ in current -= 1 } }
}
