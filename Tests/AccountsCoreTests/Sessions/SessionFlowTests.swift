@testable import AccountsContract
import AccountsSystem
import Glibc
import Synchronization
import TestDoubles
import Testing

@testable import AccountsCore

/// The session flow against a fake keyring and a fake adapter host: every row of SPEC §4 for
/// every command that meets a backend's verdict, and the order of keyring and index changes.
/// The end-to-end tests run the same stories with the real keyring and the test backend.
@Suite struct SessionFlowTests {
  static let start = Timestamp(secondsSince1970: 1_800_000_000)
  let alice = AccountID(user: "alice", backend: "corp")

  /// alice@corp: password "pw" remembered (unless not), token "T1" stored (valid for an hour, or
  /// expired a minute ago), holding the slot.
  final class World {
    let tree: TemporaryTree
    let store = FakeSecretStore()
    let host = FakeAdapterHost()
    let ledger: Ledger
    var notices: [String] = []
    /// The session locks of this world's index.
    let locks = FakeSessionLocks.Registry()
    var flow: SessionFlow {
      SessionFlow(
        ledger: ledger, host: { [host] in host }, searchPath: AdapterSearchPath(directories: []), timeout: 5,
        locks: FakeSessionLocks(registry: locks), now: { SessionFlowTests.start }, notice: { _ in })
    }

    init(remembered: Bool = true, token: Bool = true, tokenExpired: Bool = false) throws {
      tree = try TemporaryTree()
      let config = ConfigStore(paths: tree.paths)
      try config.update { try $0.add(BackendConfig(name: "corp", adapter: "plain")) }
      ledger = Ledger(index: IndexStore(paths: tree.paths), config: config, secrets: { [store] in store })
      let alice = AccountID(user: "alice", backend: "corp")
      try ledger.add(Account(id: alice, addedAt: start), password: remembered ? secret("pw") : nil)
      if token {
        let expiry = start.adding(seconds: tokenExpired ? -60 : 3600)
        try ledger.record(
          .loggedIn(remember: false, takeSlot: true), for: alice, token: secret("T1"),
          login: LoginRecord(expiresAt: expiry, session: ["userId": "1001"]), at: start.adding(seconds: -100))
      }
    }

    var book: AccountBook { get throws { try IndexStore(paths: tree.paths).load() } }
    func item(_ kind: SecretKind) -> String? { store.text(SecretKey(backend: "corp", account: "alice", kind: kind)) }
  }

  /// The commands that meet a verdict, as the flow serves them.
  enum Command: String, CaseIterable, CustomTestStringConvertible {
    case login, switchTo, currentCheck, tokenCheck, request, status
    var testDescription: String { rawValue }
    /// The first backend operation is a LOGIN (else a CHECK or CALL of the stored session).
    var logsInFirst: Bool { self == .login || self == .switchTo }
  }

  /// What the backend answers to the command's first operation.
  enum Verdict: String, CaseIterable, CustomTestStringConvertible {
    case ok, expired, takenOver, passwordChanged, upgradeRequired, backendDown
    var testDescription: String { rawValue }
  }

  func perform(_ command: Command, _ world: World) throws -> ActiveSession? {
    let flow = world.flow
    let nobodyToAsk = PasswordSource.rememberedOrAsk { _ in nil }
    switch command {
    case .login: return try flow.logIn(alice, password: nobodyToAsk, remember: false, takeSlot: false)
    case .switchTo:
      _ = try flow.switchTo(alice, password: nobodyToAsk)
      return nil
    case .currentCheck, .tokenCheck: return try flow.session(for: alice, prove: true, password: .rememberedOnly)
    case .request:
      _ = try flow.call(alice, method: "GET", path: "me", parameters: [], password: .rememberedOnly)
      return nil
    case .status:
      let entry = try flow.status(of: [alice], jobs: 4)[0]
      switch entry.outcome {
      case .valid(let session): return session
      case .failed(let failure): throw failure
      case .error(let status, let message): throw CommandError(status, message)
      case .noSession: return nil
      }
    }
  }

  /// The script: the first operation's verdict, then what follows it.
  func script(_ verdict: Verdict, _ command: Command) -> [AdapterOutcome] {
    switch verdict {
    case .ok: return command.logsInFirst ? [FakeAdapterHost.loggedIn("T2")] : []
    case .expired: return command.logsInFirst ? [.sessionExpired(message: "x")] : [.sessionExpired(message: "expired"), FakeAdapterHost.loggedIn("T2")]
    case .takenOver: return [.kicked(message: "another device")]
    case .passwordChanged:
      return command.logsInFirst ? [.wrongPassword(message: "bad")] : [.sessionExpired(message: "expired"), .wrongPassword(message: "bad")]
    case .upgradeRequired: return [.upgradeRequired(message: "too old", link: "https://example.invalid/u")]
    case .backendDown: return [.backendError(message: "connection refused")]
    }
  }

  @Test(arguments: Command.allCases, Verdict.allCases)
  func everyRuleOfSpec4ForEveryCommand(_ command: Command, _ verdict: Verdict) throws {
    // switch logs in only when the stored session is not valid: give it an expired one.
    let world = try World(tokenExpired: command == .switchTo)
    world.host.script = script(verdict, command)
    let before = try world.book
    var status: AccountsSystem.ExitStatus?
    do { _ = try perform(command, world) } catch let error as any UserFacingError { status = error.status }
    let book = try world.book
    let account = try #require(book[alice])
    let firstOperation = command.logsInFirst ? "login" : command == .request ? "call" : "check"

    switch verdict {
    case .ok:
      #expect(status == nil)
      #expect(world.item(.token) == (command.logsInFirst ? "T2" : "T1"))
      #expect(world.host.operations == [firstOperation])
    case .expired where command.logsInFirst:
      #expect(status == .sessionEnded)  // a LOGIN answering "expired" is the backend's error
    case .expired:
      // Logged in again, once, with the remembered password; a request is retried.
      #expect(status == nil)
      #expect(world.host.calls.contains("login alice pw"))
      #expect(world.host.operations == [firstOperation, "login"] + (command == .request ? ["call"] : []))
      #expect(world.item(.token) == "T2")
      #expect(book.autoLogin == alice)
    case .takenOver:
      #expect(status == .sessionEnded)
      #expect(!world.host.operations.contains("login") || command.logsInFirst, "never logs in again after a take-over")
      if !command.logsInFirst {
        #expect(world.item(.token) == nil)
        #expect(account.token == nil)
        #expect(book.autoLogin == nil)
        #expect(account.remembered)
      }
    case .passwordChanged:
      #expect(status == .credentialsRejected)
      #expect(world.item(.password) == nil && world.item(.token) == nil)
      #expect(!account.remembered && account.token == nil)
      #expect(book.autoLogin == nil)
    case .upgradeRequired, .backendDown:
      #expect(status == (verdict == .upgradeRequired ? .upgradeRequired : .backendUnavailable))
      #expect(book == before, "nothing in the index changes")
      #expect(world.item(.token) == "T1" && world.item(.password) == "pw")
    }
    #expect(world.host.calls.count <= 3, "no loop: \(world.host.calls)")
  }

  @Test(arguments: [Command.currentCheck, .tokenCheck, .request, .status])
  func expiryWithoutARememberedPasswordClearsTokenAndSlotWithExit5(_ command: Command) throws {
    let world = try World(remembered: false)
    world.host.script = [.sessionExpired(message: "expired")]
    #expect(throws: SessionFailure.expired(subject: "alice@corp", message: "expired")) { try perform(command, world) }
    #expect(world.host.operations == [command == .request ? "call" : "check"], "no login without a password")
    #expect(try world.book[alice]?.token == nil)
    #expect(try world.book.autoLogin == nil)
    #expect(world.item(.token) == nil)
  }

  @Test func requestTellsTheHostARequestIsComingBeforeItReadsTheToken() throws {
    let world = try World()
    var expectedWhenRead: [Int] = []
    world.store.duringLookup = { [host = world.host] _ in expectedWhenRead.append(host.requestsExpected) }
    _ = try world.flow.call(alice, method: "GET", path: "me", parameters: [], password: .rememberedOnly)
    #expect(!expectedWhenRead.isEmpty && expectedWhenRead.allSatisfy { $0 == 1 }, "libcurl loads while the token is read")
    #expect(world.host.operations == ["call"])
  }

  @Test func expiredAgainRightAfterTheReloginEndsWithExit5AndNoLoop() throws {
    let world = try World()
    world.host.script = [.sessionExpired(message: "e1"), FakeAdapterHost.loggedIn("T2"), .sessionExpired(message: "e2")]
    #expect(throws: SessionFailure.expiredAgain(subject: "alice@corp", message: "e2")) { try perform(.request, world) }
    #expect(world.host.operations == ["call", "login", "call"])
    #expect(try world.book[alice]?.remembered == true, "the password was not rejected")
  }

  @Test func aLocallyExpiredTokenIsReplacedWithoutAskingTheBackendFirst() throws {
    let world = try World(tokenExpired: true)
    let session = try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    #expect(world.host.operations == ["login"])
    #expect(text(session.token) == world.item(.token))
    #expect(session.origin == .loggedInAgain)
  }

  @Test func aValidTokenIsTrustedWithoutTheNetwork() throws {
    let world = try World()
    let session = try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    #expect(text(session.token) == "T1")
    #expect(world.host.calls.isEmpty)
  }

  @Test func noTokenNothingRememberedAndNobodyToAskIsExit3AtOnce() throws {
    let world = try World(remembered: false, token: false)
    let nobody = PasswordSource.rememberedOrAsk { _ in nil }
    #expect(throws: SessionFailure.loginRequired(alice)) { try world.flow.session(for: alice, prove: false, password: nobody) }
    #expect(throws: SessionFailure.loginRequired(alice)) { try world.flow.switchTo(alice, password: nobody) }
    #expect(world.host.calls.isEmpty)
  }

  @Test func aMistypedPasswordChangesNothing() throws {
    let world = try World()
    world.host.script = [.wrongPassword(message: "bad")]
    #expect(throws: SessionFailure.credentialsRejected(subject: "alice@corp", message: "bad", forgotten: false)) {
      try world.flow.logIn(alice, password: .given(secret("typo")), remember: true, takeSlot: false)
    }
    #expect(world.item(.password) == "pw" && world.item(.token) == "T1")
    #expect(try world.book.autoLogin == alice)
  }

  @Test func switchReusesAValidSessionWithoutTheNetworkAndTakesTheSlot() throws {
    let world = try World()
    let bob = AccountID(user: "bob", backend: "corp")
    _ = try world.flow.logIn(bob, password: .given(secret("b")), remember: true, takeSlot: true)
    #expect(try world.book.autoLogin == bob)
    world.host.script = []
    let callsBefore = world.host.calls.count
    let storeCallsBefore = world.store.calls.count
    let (session, reused) = try world.flow.switchTo(alice, password: .rememberedOnly)
    #expect(reused && session.id == alice)
    #expect(world.host.calls.count == callsBefore, "no network")
    #expect(world.store.calls.count == storeCallsBefore, "no keyring either: the index's word")
    #expect(try world.book.autoLogin == alice)
    #expect(try world.book.previousAutoLogin == bob)
    #expect(try world.book[bob]?.token != nil && world.book[bob]?.remembered == true, "the demoted holder keeps both")
  }

  @Test func loginStoresTheSecretsBeforeTheIndexClaimsThem() throws {
    let world = try World(remembered: false, token: false)
    var claimedDuringStore: [Bool] = []
    world.store.duringStore = { claimedDuringStore.append((try? world.book[self.alice]?.token) != nil) }
    _ = try world.flow.logIn(alice, password: .given(secret("pw")), remember: true, takeSlot: true)
    #expect(claimedDuringStore == [false, false])
    #expect(try world.book[alice]?.token != nil && world.book[alice]?.remembered == true)
    #expect(try world.book.autoLogin == alice)
    #expect(try world.book.unsettled.isEmpty)
  }

  /// A leased flow meets a take-over: it logs in again once with the remembered password and
  /// keeps the slot; the same verdict outside a lease ends the session (exit 5), never a login.
  @Test func aLeasedFlowLogsInAgainAfterATakeOver() throws {
    let world = try World()
    var flow = world.flow
    let leases = FakeLeases()
    leases.hold(alice, lease: "L1")
    flow.leases = leases
    flow.heldLeases = [alice: "L1"]
    world.host.script = [.kicked(message: "elsewhere"), FakeAdapterHost.loggedIn("T2")]
    let session = try flow.session(for: alice, prove: true, password: .rememberedOnly)
    #expect(text(session.token) == "T2")
    #expect(world.host.operations == ["check", "login"])
    #expect(world.item(.token) == "T2")
    #expect(try world.book.autoLogin == alice, "the slot stays")

    let unleased = try World()
    unleased.host.script = [.kicked(message: "elsewhere")]
    #expect(throws: SessionFailure.self) { try unleased.flow.session(for: alice, prove: true, password: .rememberedOnly) }
    #expect(unleased.host.operations == ["check"], "no login after a take-over outside a lease")
  }

  @Test func anEndingForgetsTheClaimBeforeTheSecretIsDeleted() throws {
    let world = try World()
    var claimedDuringDelete: [Bool] = []
    world.store.duringDelete = { claimedDuringDelete.append((try? world.book[self.alice]?.token) != nil) }
    world.host.script = [.kicked(message: "elsewhere")]
    #expect(throws: SessionFailure.self) { try world.flow.session(for: alice, prove: true, password: .rememberedOnly) }
    #expect(claimedDuringDelete == [false])
    #expect(try world.book.unsettled.isEmpty)
  }

  @Test func aFailedDeletionLeavesNoClaimAndSettlingSweepsTheLeftover() throws {
    let world = try World()
    world.store.failNext["delete"] = .failed(operation: "delete", detail: "boom")
    let warnings = try world.flow.logOut(alice)
    #expect(warnings.contains { $0.contains("the keyring kept the token for now") }, "\(warnings)")
    #expect(try world.book[alice]?.token == nil)
    #expect(try world.book.unsettled == [alice])
    #expect(world.item(.token) == "T1")
    _ = try world.ledger.settle()
    #expect(world.item(.token) == nil)
  }

  @Test func logoutWithTheBackendDownStillEndsTheSessionHere() throws {
    let world = try World()
    world.host.script = [.backendError(message: "connection refused")]
    let warnings = try world.flow.logOut(alice)
    #expect(warnings.count == 1 && warnings[0].contains("connection refused"))
    #expect(world.host.operations == ["logout"])
    #expect(world.item(.token) == nil && world.item(.password) == "pw")
    #expect(try world.book.autoLogin == nil)
  }

  @Test func logoutWithoutASessionWarnsAndEmptiesTheSlot() throws {
    let world = try World()
    _ = try world.flow.logOut(alice)
    let warnings = try world.flow.logOut(alice)
    #expect(warnings == ["alice@corp had no session"])
    #expect(world.host.operations == ["logout"], "the backend is told once")
  }

  @Test func aVerdictOnASessionThatWasReplacedMeanwhileChangesNothing() throws {
    let world = try World()
    let judged = try #require(try world.flow.storedSession(alice))
    _ = try world.flow.logIn(alice, password: .rememberedOnly, remember: false, takeSlot: false)
    let fresh = try #require(world.item(.token))
    #expect(try world.ledger.record(.takenOver, for: alice, observed: judged.observed, at: Self.start) == .stale)
    #expect(world.item(.token) == fresh)
    #expect(try world.book.autoLogin == alice)
  }

  @Test func aVerdictOnASessionReplacedWithinTheSameSecondChangesNothing() throws {
    let world = try World()
    let first = try world.flow.logIn(alice, password: .rememberedOnly, remember: false, takeSlot: false)
    _ = try world.flow.logIn(alice, password: .rememberedOnly, remember: false, takeSlot: false)
    let fresh = try #require(world.item(.token))
    #expect(first.observed != (try world.flow.storedSession(alice))?.observed, "same second, another session")
    #expect(try world.ledger.record(.tokenExpired, for: alice, observed: first.observed, at: Self.start) == .stale)
    #expect(world.item(.token) == fresh)
  }

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
