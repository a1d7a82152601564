@testable import AccountsContract
import AccountsSystem
import Foundation
import TestDoubles
import Testing

@testable import AccountsCore

/// The steps every entry point shares that decide who may act on a leased account (SPEC §4's
/// lease rows), through the entry points, with a fake keyring, adapter host and lease store:
/// nobody but the holder logs a leased account in or out, and a holder that lost its lease
/// stops at once. The end-to-end tests run the same stories on two machines sharing a real
/// Redis, with the test backend's single sign-on as the witness.
@Suite struct SessionFlowStepsTests {
  let alice = AccountID(user: "alice", backend: "corp")
  typealias World = SessionFlowTests.World

  /// The world's flow over `leases`, holding `held`.
  func flow(_ world: World, _ leases: FakeLeases, held: [AccountID: String] = [:], forced: Bool = false) -> SessionFlow {
    var flow = world.flow
    flow.leases = leases
    flow.heldLeases = held
    flow.forced = forced
    return flow
  }

  @Test func aLoginOfAnAccountAnotherHolderLeasesIsRefusedNamingItUnlessForced() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    let refused = #expect(throws: SessionFailure.self) {
      try flow(world, leases).logIn(alice, password: .given(secret("pw")), remember: false, takeSlot: false)
    }
    #expect(refused == .leased(alice, .logIn, by: FakeLeases.record(alice, lease: "L2"), forcing: .login))
    #expect(refused?.status == .failure)
    #expect(world.host.calls.isEmpty, "the backend never heard of it")
    #expect(world.item(.token) == "T1", "the holder's session is untouched")

    let forced = try flow(world, leases, forced: true).logIn(
      alice, password: .given(secret("pw")), remember: false, takeSlot: false)
    #expect(world.host.operations == ["login"])
    #expect(world.item(.token) == text(forced.token))
  }

  @Test func aLogoutOfAnAccountAnotherHolderLeasesIsRefusedUnlessForced() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    #expect(throws: SessionFailure.leased(alice, .logOut, by: FakeLeases.record(alice, lease: "L2"), forcing: .login)) {
      try flow(world, leases).logOut(alice)
    }
    #expect(world.host.calls.isEmpty)
    #expect(try world.book[alice]?.token != nil && world.item(.token) == "T1")
    _ = try flow(world, leases, forced: true).logOut(alice)
    #expect(try world.book[alice]?.token == nil)
    #expect(world.host.operations == ["logout"])
  }

  /// An expired session of someone else's leased account: the token goes (it is dead), but no
  /// login: the holder renews its own session.
  @Test(arguments: [false, true])
  func anExpiredSessionOfAnotherHoldersAccountIsNotLoggedInAgain(prove: Bool) throws {
    let world = try World(tokenExpired: !prove)
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    world.host.script = [.sessionExpired(message: "expired")]
    #expect(throws: SessionFailure.leased(alice, .logIn, by: FakeLeases.record(alice, lease: "L2"), forcing: .login)) {
      try flow(world, leases).session(for: alice, prove: prove, password: .rememberedOnly)
    }
    #expect(world.host.operations == (prove ? ["check"] : []), "never a login")
    #expect(world.item(.token) == nil)
    #expect(try world.book[alice]?.remembered == true)
  }

  /// The ping-pong of two holders: the one whose lease was lost hears the take-over by the new
  /// holder's login and stops, where a holder would log in again.
  @Test func aHolderThatLostItsLeaseDoesNotLogInAgainAfterATakeOver() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2", host: "machine-b")
    world.host.script = [.kicked(message: "another device")]
    let failure = #expect(throws: SessionFailure.self) {
      try flow(world, leases, held: [alice: "L1"]).session(for: alice, prove: true, password: .rememberedOnly)
    }
    #expect(failure == .leaseLost(alice, now: FakeLeases.record(alice, lease: "L2", host: "machine-b")))
    #expect(failure?.status == .sessionEnded)
    #expect(failure?.message.contains("machine-b:4242 holds the account") == true, "\(failure?.message ?? "")")
    #expect(world.host.operations == ["check"], "no login: it would kick the rightful holder")
    #expect(world.item(.token) == nil)

    leases.free(alice)  // expired, nobody took it yet: still lost
    let expired = try World()
    expired.host.script = [.sessionExpired(message: "expired")]
    #expect(throws: SessionFailure.leaseLost(alice, now: nil)) {
      try flow(expired, leases, held: [alice: "L1"]).session(for: alice, prove: true, password: .rememberedOnly)
    }
    #expect(expired.host.operations == ["check"])
  }

  /// The refresher of a lost lease learns it before it does anything, renewal or check.
  @Test func aRefresherOfALostLeaseStopsBeforeAnyCall() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    let held = flow(world, leases, held: [alice: "L1"])
    #expect(throws: SessionFailure.leaseLost(alice, now: FakeLeases.record(alice, lease: "L2"))) {
      try held.renew(alice, replacing: nil, now: 0)
    }
    #expect(throws: SessionFailure.leaseLost(alice, now: FakeLeases.record(alice, lease: "L2"))) {
      try held.checkedSession(alice)
    }
    #expect(world.host.calls.isEmpty)
    // Its own lease: renewed as ever.
    leases.hold(alice, lease: "L1")
    _ = try held.renew(alice, replacing: nil, now: Double.infinity)
    #expect(world.host.operations == ["login"])
  }

  @Test func aStoreThatCannotTellRefusesTheLoginButNotTheCheck() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.fail(CommandError(.backendUnavailable, "lease store redis://127.0.0.1:1 cannot be reached"))
    #expect(throws: CommandError.self) {
      try flow(world, leases).logIn(alice, password: .given(secret("pw")), remember: false, takeSlot: false)
    }
    #expect(world.host.calls.isEmpty)
    // A check harms nobody: a holder's refresher goes on checking while the store is away.
    _ = try flow(world, leases, held: [alice: "L1"]).checkedSession(alice)
    #expect(world.host.operations == ["check"])
  }

  @Test func loginStaleSkipsAnAccountAnotherHolderLeasesSayingWho() throws {
    let world = try World(tokenExpired: true)
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    let entries = flow(world, leases).logInStale([alice], withinSeconds: 600, jobs: 2)
    guard case .leased(let record) = entries.first?.outcome else {
      Issue.record("not skipped: \(String(describing: entries.first?.outcome))")
      return
    }
    #expect(record == FakeLeases.record(alice, lease: "L2"))
    #expect(world.host.calls.isEmpty)
    let forced = flow(world, leases, forced: true).logInStale([alice], withinSeconds: 600, jobs: 2)
    guard case .loggedIn = forced.first?.outcome else {
      Issue.record("--force logs it in: \(String(describing: forced.first?.outcome))")
      return
    }
  }

  @Test func aBackendTestOfALeasedUserIsRefused() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    #expect(throws: SessionFailure.self) { try flow(world, leases).trial("alice", on: "corp", password: .given(secret("pw"))) }
    #expect(world.host.calls.isEmpty)
  }

  /// What needs no login asks no store: a valid token is used, whoever holds the lease.
  @Test func aValidSessionIsUsedWithoutAskingTheStore() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    let session = try flow(world, leases).session(for: alice, prove: false, password: .rememberedOnly)
    #expect(text(session.token) == "T1")
    #expect(leases.lookups.isEmpty)
  }

  /// A take-over seen by a command that holds no lease never logs in again, whoever leases the
  /// account: the store is not asked, so one that cannot be reached changes nothing of SPEC §4's
  /// row (token and slot cleared, exit 5).
  @Test func aTakeOverSeenByANonHolderNeedsNoStore() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.fail(CommandError(.backendUnavailable, "lease store redis://127.0.0.1:1 cannot be reached"))
    world.host.script = [.kicked(message: "another device")]
    #expect(throws: SessionFailure.signedInElsewhere(subject: "alice@corp", message: "another device")) {
      try flow(world, leases).session(for: alice, prove: true, password: .rememberedOnly)
    }
    #expect(leases.lookups.isEmpty)
    #expect(world.item(.token) == nil)
    #expect(try world.book.autoLogin == nil)
  }

  /// Nor an expiry with nothing to log in again with.
  @Test func anExpiryWithoutARememberedPasswordNeedsNoStore() throws {
    let world = try World(remembered: false)
    let leases = FakeLeases()
    leases.fail(CommandError(.backendUnavailable, "lease store redis://127.0.0.1:1 cannot be reached"))
    world.host.script = [.sessionExpired(message: "expired")]
    #expect(throws: SessionFailure.expired(subject: "alice@corp", message: "expired")) {
      try flow(world, leases).session(for: alice, prove: true, password: .rememberedOnly)
    }
    #expect(leases.lookups.isEmpty)
    #expect(world.item(.token) == nil)
  }

  /// A refused login reads no remembered password and asks nobody for one.
  @Test func aRefusedLoginAsksForNoPassword() throws {
    let world = try World(remembered: false)
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    let asked = Counter(start: 0)
    let asking = PasswordSource.rememberedOrAsk { _ in
      _ = asked.next()
      return secret("typed")
    }
    #expect(throws: SessionFailure.self) {
      try flow(world, leases).logIn(alice, password: asking, remember: false, takeSlot: false)
    }
    let expired = try World(remembered: false, tokenExpired: true)
    #expect(throws: SessionFailure.self) { try flow(expired, leases).switchTo(alice, password: asking) }
    #expect(asked.next() == 0, "nobody was asked for a password only to be refused")
    #expect(!world.store.calls.contains { $0.hasPrefix("lookup") }, "\(world.store.calls)")
  }

  /// A worker that presents a lease's id (ACCOUNTS_LEASE_ID) is the holder where the store
  /// names that lease, and anyone else elsewhere.
  @Test func aPresentedLeaseIdMakesItsWorkerTheHolder() throws {
    let world = try World()
    let leases = FakeLeases()
    leases.hold(alice, lease: "L2")
    world.host.script = [.sessionExpired(message: "expired")]
    var worker = flow(world, leases)
    worker.presentedLeases = ["L2"]
    let session = try worker.session(for: alice, prove: true, password: .rememberedOnly)
    #expect(world.host.operations == ["check", "login"])
    #expect(world.item(.token) == text(session.token))

    worker.presentedLeases = ["L3"]
    #expect(throws: SessionFailure.leased(alice, .logOut, by: FakeLeases.record(alice, lease: "L2"), forcing: .login)) {
      try worker.logOut(alice)
    }
  }

  /// `lease` takes the session of its new account under the account's session lock: a login
  /// another command began before the lease finishes first, and its session is the one handed
  /// on (proved), never ended by it afterwards.
  @Test func aLeasedSessionWaitsForALoginInFlight() throws {
    let world = try World(token: false)
    let leases = FakeLeases()
    leases.hold(alice, lease: "L1")
    let outsider = world.flow
    let started = DispatchSemaphore(value: 0)
    let other = Thread {
      _ = try? outsider.locks.exclusive(self.alice) {
        started.signal()
        usleep(300_000)
        _ = try outsider.logIn(self.alice, password: .given(secret("pw")), remember: false, takeSlot: false)
      }
    }
    other.start()
    started.wait()
    let session = try flow(world, leases, held: [alice: "L1"]).leasedSession(for: alice)
    #expect(world.host.operations == ["login", "check"], "the outsider's login, then the holder's check of it")
    #expect(world.item(.token) == text(session.token))
  }
}
