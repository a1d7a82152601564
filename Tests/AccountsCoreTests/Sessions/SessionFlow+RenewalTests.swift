@testable import AccountsContract
import AccountsSystem
import Dispatch
import Glibc
import SecretMemory
import TestDoubles
import TestSupport
import Testing

@testable import AccountsCore

/// Renewing a session: by its refresh token first, then the remembered password; a refresh
/// token kept in the keyring and claimed in the index like the token, never lost or left over.
@Suite struct SessionFlowRenewalTests {
  static let start = Timestamp(secondsSince1970: 1_800_000_000)
  let alice = AccountID(user: "alice", backend: "corp")

  /// alice@corp, logged in with token T1 and refresh token R1 (expired a minute ago unless
  /// `valid`), with the password "pw" remembered unless not.
  final class World {
    let tree: TemporaryTree
    let store = FakeSecretStore()
    let host = FakeAdapterHost()
    let ledger: Ledger
    let locks = FakeSessionLocks.Registry()
    var person: PersonChannel?
    var leases: any LeaseLookup = NoLeases()
    var timeout = 5.0
    var flow: SessionFlow {
      var flow = SessionFlow(
        ledger: ledger, host: { [host] in host }, searchPath: AdapterSearchPath(directories: []), timeout: timeout,
        locks: FakeSessionLocks(registry: locks), now: { SessionFlowRenewalTests.start }, notice: { _ in })
      flow.person = person
      flow.leases = leases
      return flow
    }

    init(remembered: Bool = true, valid: Bool = false, refreshToken: String? = "R1") throws {
      tree = try TemporaryTree()
      let config = ConfigStore(paths: tree.paths)
      try config.update { try $0.add(BackendConfig(name: "corp", adapter: "oauth2")) }
      ledger = Ledger(index: IndexStore(paths: tree.paths), config: config, secrets: { [store] in store })
      let alice = AccountID(user: "alice", backend: "corp")
      try ledger.add(Account(id: alice, addedAt: start), password: remembered ? secret("pw") : nil)
      try ledger.record(
        .loggedIn(remember: false, takeSlot: true), for: alice, token: secret("T1"),
        refreshToken: refreshToken.map(secret),
        login: LoginRecord(expiresAt: start.adding(seconds: valid ? 3600 : -60), session: ["issuer": "i"]),
        at: start.adding(seconds: -100))
    }

    var book: AccountBook { get throws { try IndexStore(paths: tree.paths).load() } }
    func item(_ kind: SecretKind) -> String? { store.text(SecretKey(backend: "corp", account: "alice", kind: kind)) }
  }

  static func refreshed(_ token: String, rotated: String? = nil) -> AdapterOutcome {
    .ok(AdapterSuccess(token: secret(token), expiresIn: 300, sessionValues: ["scope": "api"], refreshToken: rotated.map(secret)))
  }

  @Test func aLoginKeepsTheRefreshTokenItGotAndTheIndexClaimsIt() throws {
    let world = try World()
    #expect(world.item(.refreshToken) == "R1")
    #expect(try world.book[alice]?.token?.refreshable == true)
  }

  @Test func anExpiredSessionIsRenewedByTheRefreshTokenWithoutThePassword() throws {
    let world = try World()
    world.host.script = [Self.refreshed("T2", rotated: "R2")]
    let session = try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    #expect(world.host.calls == ["refresh alice R1"])
    #expect(world.host.requestsExpected == 1, "libcurl loads while the refresh token is read")
    #expect(session.token == secret("T2") && session.origin == .loggedInAgain)
    #expect(world.item(.token) == "T2")
    #expect(world.item(.refreshToken) == "R2", "the rotated refresh token replaces the old one")
    let account = try #require(try world.book[alice])
    #expect(account.token?.refreshable == true)
    #expect(account.token?.expiresAt == Self.start.adding(seconds: 300))
    #expect(account.session == ["issuer": "i", "scope": "api"], "the renewal's values join the login's")
    #expect(try world.book.autoLogin == alice, "a renewal keeps the slot")
  }

  @Test func aRenewalThatGotNoNewRefreshTokenKeepsTheOldOne() throws {
    let world = try World()
    world.host.script = [Self.refreshed("T2")]
    _ = try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    #expect(world.item(.refreshToken) == "R1")
    #expect(try world.book[alice]?.token?.refreshable == true)
  }

  @Test func aRefusedRefreshTokenIsForgottenAndTheRememberedPasswordLogsIn() throws {
    let world = try World()
    world.host.script = [.sessionExpired(message: "invalid_grant"), FakeAdapterHost.loggedIn("T3")]
    let session = try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    #expect(world.host.calls == ["refresh alice R1", "login alice pw"])
    #expect(session.token == secret("T3"))
    #expect(world.item(.refreshToken) == nil)
    #expect(try world.book[alice]?.token?.refreshable == false)
  }

  @Test func withoutAPasswordARefusedRefreshTokenEndsTheSessionWithExit5() throws {
    let world = try World(remembered: false)
    world.host.script = [.sessionExpired(message: "invalid_grant")]
    let error = #expect(throws: SessionFailure.self) {
      try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    }
    #expect(error?.status == .sessionEnded)
    #expect(world.item(.refreshToken) == nil && world.item(.token) == nil)
    #expect(try world.book[alice]?.token == nil)
  }

  @Test func aProviderThatIsDownChangesNothing() throws {
    let world = try World()
    world.host.script = [.backendError(message: "connection refused")]
    let error = #expect(throws: SessionFailure.self) {
      try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    }
    #expect(error?.status == .backendUnavailable)
    #expect(world.host.calls == ["refresh alice R1"], "no password login after a refresh the network failed")
    #expect(world.item(.refreshToken) == "R1" && world.item(.token) == "T1")
  }

  @Test func anotherHoldersLeasedSessionIsNotRefreshedNorItsRefreshTokenTouched() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    world.leases = leases
    #expect(throws: SessionFailure.self) {
      try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    }
    #expect(world.host.calls.isEmpty)
    #expect(world.item(.refreshToken) == "R1" && world.item(.token) == "T1")
  }

  @Test func logoutRevokesBothTokensBeforeForgettingThem() throws {
    let world = try World(valid: true)
    let store = world.store
    let seenDuringLogout = ThreadSafeList<String>()
    world.host.fallback = { request in
      if case .logout = request.operation {
        seenDuringLogout.append(store.text(SecretKey(backend: "corp", account: "alice", kind: .refreshToken)) ?? "none")
      }
      return .ok(AdapterSuccess())
    }
    let warnings = try world.flow.logOut(alice)
    #expect(warnings.isEmpty)
    #expect(world.host.calls == ["logout alice T1 refresh R1"])
    #expect(seenDuringLogout.all == ["R1"], "the provider was told while the refresh token was still kept")
    #expect(world.item(.refreshToken) == nil && world.item(.token) == nil)
  }

  @Test func aLogoutWhoseRevocationFailsStillForgetsAndSaysSo() throws {
    let world = try World(valid: true)
    world.host.script = [.backendError(message: "connection refused")]
    let warnings = try world.flow.logOut(alice)
    #expect(warnings.contains { $0.contains("the backend was not told") })
    #expect(world.item(.refreshToken) == nil && world.item(.token) == nil)
  }

  @Test func aNewLoginWithoutARefreshTokenDeletesTheOldOne() throws {
    let world = try World(valid: true)
    world.host.script = [FakeAdapterHost.loggedIn("T5")]
    _ = try world.flow.logIn(alice, password: .given(secret("pw")), remember: false, takeSlot: false)
    #expect(world.item(.refreshToken) == nil)
    #expect(try world.book[alice]?.token?.refreshable == false)
    #expect(try world.book.unsettled.isEmpty)
  }

  @Test func settlingDropsARefreshTokenNothingClaimsAndAClaimTheKeyringLost() throws {
    let world = try World(valid: true)
    // The keyring lost the refresh token: the claim goes.
    world.store.items[SecretKey(backend: "corp", account: "alice", kind: .refreshToken)] = nil
    try world.ledger.settle(alice)
    #expect(try world.book[alice]?.token?.refreshable == false)
    #expect(try world.book[alice]?.token != nil, "the token itself stays")
    // A refresh token nothing claims (a login killed before the index took it) is deleted.
    world.store.items[SecretKey(backend: "corp", account: "alice", kind: .refreshToken)] = Array("R9".utf8)
    try world.ledger.settle(alice)
    #expect(world.item(.refreshToken) == nil)
  }

  @Test func aLoginAPersonApprovesIsRefusedWithoutATerminalBeforeAnythingRuns() throws {
    let world = try World(remembered: false, valid: false, refreshToken: nil)
    world.host.needs = .person
    let error = #expect(throws: SessionFailure.self) {
      try world.flow.logIn(alice, password: .rememberedOrAsk { _ in nil }, remember: false, takeSlot: false)
    }
    #expect(error == .personRequired(alice))
    #expect(error?.status == .loginRequired)
    #expect(world.host.calls.isEmpty)
  }

  @Test func aLoginAPersonApprovesIsShownToThemAndNeedsNoPassword() throws {
    let world = try World(remembered: true, valid: false, refreshToken: nil)
    world.host.needs = .person
    world.person = PersonChannel { _ in }
    world.host.script = [.ok(AdapterSuccess(token: secret("T7"), expiresIn: 60, refreshToken: secret("R7")))]
    _ = try world.flow.logIn(alice, password: .rememberedOrAsk { _ in nil }, remember: true, takeSlot: false)
    #expect(world.host.calls == ["login alice "], "no password, not even the remembered one")
    #expect(world.host.personGiven == [true])
    #expect(world.item(.refreshToken) == "R7")
    #expect(world.item(.password) == "pw", "the remembered password is left as it was")
  }

  @Test func onlyALoginIsGivenThePerson() throws {
    let world = try World()
    world.host.needs = [.person]
    world.person = PersonChannel { _ in }
    world.host.script = [Self.refreshed("T2")]
    _ = try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    #expect(world.host.personGiven == [false])
  }
}

extension SessionFlowRenewalTests {
  @Test func switchRenewsAnExpiredSessionByItsRefreshTokenAndTakesTheSlot() throws {
    let world = try World()
    let bob = AccountID(user: "bob", backend: "corp")
    try world.ledger.record(
      .loggedIn(remember: false, takeSlot: true), for: bob, token: secret("B1"), login: LoginRecord(expiresAt: nil),
      at: Self.start)
    #expect(try world.book.autoLogin == bob)
    world.host.script = [Self.refreshed("T2", rotated: "R2")]
    let (session, reused) = try world.flow.switchTo(alice, password: .rememberedOrAsk { _ in nil })
    #expect(!reused && session.expiresAt == Self.start.adding(seconds: 300))
    #expect(world.host.calls == ["refresh alice R1"], "no password login")
    #expect(try world.book.autoLogin == alice)
  }
}

extension SessionFlowRenewalTests {
  @Test func aNewLoginOverASessionWithARefreshTokenRevokesTheOldOne() throws {
    let world = try World(valid: true)
    world.host.script = [.ok(AdapterSuccess(token: secret("T9"), expiresIn: 60, refreshToken: secret("R9")))]
    _ = try world.flow.logIn(alice, password: .given(secret("pw")), remember: false, takeSlot: false)
    #expect(world.host.calls == ["login alice pw", "logout alice T1 refresh R1"])
    #expect(world.item(.refreshToken) == "R9" && world.item(.token) == "T9")
  }

  @Test func aLoginAfterARefusedRefreshTokenRevokesNothingMore() throws {
    let world = try World()
    world.host.script = [.sessionExpired(message: "invalid_grant"), FakeAdapterHost.loggedIn("T3")]
    _ = try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    #expect(world.host.calls == ["refresh alice R1", "login alice pw"])
  }
}


/// What a hostile review found: each test failed before its fix.
extension SessionFlowRenewalTests {
  /// The rotated refresh token is stored before the token: a kill between the two leaves a
  /// refresh token the provider accepts.
  @Test func aRotatedRefreshTokenIsStoredBeforeTheToken() throws {
    let world = try World()
    world.host.script = [Self.refreshed("T2", rotated: "R2")]
    _ = try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    let stores = world.store.calls.filter { $0.hasPrefix("store ") }
    #expect(stores.suffix(2) == ["store alice@corp refresh_token", "store alice@corp token"], "\(stores)")
  }

  /// A person's wait is not the backend's: the command's next call gets the whole --timeout.
  @Test func aPersonsWaitLeavesTheCommandItsWholeTimeout() throws {
    let world = try World(remembered: false, refreshToken: nil)
    try world.ledger.record(.loggedOut, for: alice, at: Self.start)
    world.host.needs = .person
    world.person = PersonChannel { _ in }
    world.timeout = 0.3
    world.host.fallback = { request in
      if case .login = request.operation {
        usleep(500_000)  // the person takes longer than the whole --timeout
        return .ok(AdapterSuccess(token: secret("T8"), expiresIn: 60))
      }
      return .ok(AdapterSuccess(body: "{}"))
    }
    let answer = try world.flow.call(
      alice, method: "GET", path: "me", parameters: [], password: .rememberedOrAsk { _ in nil })
    #expect(answer.body == "{}")
    #expect(world.host.operations == ["login", "call"])
  }

  /// A backend whose logins a person approves is never logged in unattended, even when a
  /// password is remembered (set before its grant changed): the renewal stops at exit 3.
  @Test func anUnattendedRenewalNeverStartsALoginAPersonApproves() throws {
    let world = try World(remembered: true, refreshToken: nil)
    world.host.needs = .person
    world.person = PersonChannel { _ in }
    #expect(throws: SessionFailure.loginRequired(alice)) {
      try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    }
    #expect(world.host.calls.isEmpty)
    let entries = world.flow.logInStale([alice], withinSeconds: 600, jobs: 1)
    #expect(world.host.calls.isEmpty, "login --stale shows nobody a code: \(entries)")
  }

  /// switch whose refresh token is refused, with nothing remembered, logs in as for a session
  /// without one: it asks.
  @Test func switchAfterARefusedRefreshTokenAsksForThePassword() throws {
    let world = try World(remembered: false)
    world.host.script = [.sessionExpired(message: "invalid_grant"), FakeAdapterHost.loggedIn("T4")]
    let asked = ThreadSafeList<String>()
    let (_, reused) = try world.flow.switchTo(alice, password: .rememberedOrAsk { id in
      asked.append(id.description)
      return secret("typed")
    })
    #expect(!reused && asked.all == ["alice@corp"])
    #expect(world.host.calls == ["refresh alice R1", "login alice typed"])
  }

  /// A refresh another command overtook got tokens nobody keeps: they are revoked.
  @Test func tokensARefreshGotThatNobodyKeepsAreRevoked() throws {
    let world = try World()
    let ledger = world.ledger
    let alice = alice
    world.host.fallback = { request in
      if case .refresh = request.operation {
        // Meanwhile another command logs the account out.
        _ = try? ledger.record(.loggedOut, for: alice, at: SessionFlowRenewalTests.start)
        return SessionFlowRenewalTests.refreshed("T2", rotated: "R2")
      }
      return .ok(AdapterSuccess())
    }
    #expect(throws: SessionFailure.self) { try world.flow.session(for: alice, prove: false, password: .rememberedOnly) }
    #expect(world.host.calls == ["refresh alice R1", "logout alice T2 refresh R2"])
  }

  @Test func aReLoginThatGotTheSameRefreshTokenRevokesNothing() throws {
    let world = try World(valid: true)
    world.host.script = [.ok(AdapterSuccess(token: secret("T9"), expiresIn: 60, refreshToken: secret("R1")))]
    _ = try world.flow.logIn(alice, password: .given(secret("pw")), remember: false, takeSlot: false)
    #expect(world.host.calls == ["login alice pw"])
    #expect(world.item(.refreshToken) == "R1")
  }

  @Test func forgettingAnAccountRevokesItsRefreshTokenFirst() throws {
    let world = try World(valid: true)
    let warnings = world.flow.revokeRefreshTokens(of: [alice])
    #expect(warnings.isEmpty)
    #expect(world.host.calls == ["logout alice T1 refresh R1"])
    #expect(world.item(.refreshToken) == "R1", "forgetting is the ledger's; this only tells the provider")
  }
}

/// What a second review of those fixes found: each test failed before its fix.
extension SessionFlowRenewalTests {
  @Test func backendTestOfALoginAPersonApprovesShowsItToThem() throws {
    let world = try World(remembered: false, refreshToken: nil)
    world.host.needs = .person
    world.person = PersonChannel { _ in }
    world.host.script = [.ok(AdapterSuccess(token: secret("T5"), expiresIn: 60, refreshToken: secret("R5")))]
    _ = try world.flow.trial("bob", on: "corp", password: .rememberedOrAsk { _ in nil })
    #expect(world.host.calls == ["login bob ", "logout bob T5 refresh R5"])
    #expect(world.host.personGiven == [true, false])
  }

  /// logout takes no session lock (a person's login may hold it for half an hour); a renewal
  /// that lands while it revokes is revoked and ended too.
  @Test func aRenewalThatLandsDuringLogoutIsRevokedToo() throws {
    let world = try World(valid: true)
    let ledger = world.ledger
    let alice = alice
    let renewed = ThreadSafeList<Bool>()
    world.host.fallback = { request in
      if case .logout = request.operation, renewed.all.isEmpty {
        renewed.append(true)
        _ = try? ledger.record(
          .refreshed, for: alice, token: secret("T2"), refreshToken: secret("R2"),
          login: LoginRecord(expiresAt: nil, generation: "renewed"), at: SessionFlowRenewalTests.start)
      }
      return .ok(AdapterSuccess())
    }
    let warnings = try world.flow.logOut(alice)
    #expect(warnings.isEmpty, "\(warnings)")
    #expect(world.host.calls == ["logout alice T1 refresh R1", "logout alice T2 refresh R2"])
    #expect(world.item(.token) == nil && world.item(.refreshToken) == nil)
  }

  @Test func logoutDoesNotWaitForTheSessionLock() throws {
    let world = try World(valid: true)
    let registry = world.locks
    let alice = alice
    let held = Semaphore(value: 0)
    let release = Semaphore(value: 0)
    // Another command holds the account's lock (a person approving its login elsewhere).
    DispatchQueue.global().async {
      _ = try? FakeSessionLocks(registry: registry).exclusive(alice) {
        held.post()
        release.wait()
      }
    }
    held.wait()
    defer { release.post() }
    let warnings = try world.flow.logOut(alice)
    #expect(warnings.isEmpty && world.item(.token) == nil)
  }

  @Test func revokingBeforeForgettingStopsWhenTheTimeoutRunsOut() throws {
    let world = try World(valid: true)
    let bob = AccountID(user: "bob", backend: "corp")
    try world.ledger.record(
      .loggedIn(remember: false, takeSlot: false), for: bob, token: secret("B1"), refreshToken: secret("RB"),
      login: LoginRecord(expiresAt: nil), at: Self.start)
    world.timeout = 0.2
    world.host.fallback = { _ in
      usleep(300_000)
      return .ok(AdapterSuccess())
    }
    let warnings = world.flow.revokeRefreshTokens(of: [alice, bob])
    #expect(world.host.calls.count == 1)
    #expect(warnings.contains { $0.contains("1 more session(s) with a refresh token were not revoked") }, "\(warnings)")
  }
}
