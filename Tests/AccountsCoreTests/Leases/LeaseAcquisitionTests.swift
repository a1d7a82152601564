import AccountsContract
import AccountsSystem
import Synchronization
import TestDoubles
import Testing

@testable import AccountsCore

/// `accounts lease`'s flow with an in-memory store, a fake keyring and adapter host, and a fake
/// clock: what it takes, what it skips and says, how long it waits before exit 10. The real
/// stores (this machine's files, Redis) and the command run end to end.
@Suite struct LeaseAcquisitionTests {
  static let start = Timestamp(secondsSince1970: 1_800_000_000)
  let qa1 = AccountID(user: "qa1", backend: "corp")
  let qa2 = AccountID(user: "qa2", backend: "corp")

  /// qa1 and qa2 on corp with remembered passwords (unless `unremembered`), qa1 with a valid
  /// session unless `expired`.
  final class World {
    let tree: TemporaryTree
    let store = FakeSecretStore()
    let host = FakeAdapterHost()
    let leases = InMemoryLeaseStore()
    let ledger: Ledger
    let locks = FakeSessionLocks.Registry()
    var flow: SessionFlow {
      var flow = SessionFlow(
        ledger: ledger, host: { [host] in host }, searchPath: AdapterSearchPath(directories: []), timeout: 5,
        locks: FakeSessionLocks(registry: locks), now: { LeaseAcquisitionTests.start }, notice: { _ in })
      flow.leases = leases
      return flow
    }

    init(unremembered: Set<String> = [], expired: Bool = false) throws {
      tree = try TemporaryTree()
      let config = ConfigStore(paths: tree.paths)
      try config.update { try $0.add(BackendConfig(name: "corp", adapter: "plain")) }
      ledger = Ledger(index: IndexStore(paths: tree.paths), config: config, secrets: { [store] in store })
      for user in ["qa1", "qa2"] {
        try ledger.add(
          Account(id: AccountID(user: user, backend: "corp"), addedAt: start), password: unremembered.contains(user) ? nil : secret("pw-\(user)"))
      }
      try ledger.record(
        .loggedIn(remember: false, takeSlot: false), for: AccountID(user: "qa1", backend: "corp"), token: secret("T1"),
        login: LoginRecord(expiresAt: start.adding(seconds: expired ? -60 : 3600), session: [:]), at: start)
    }
  }

  /// A clock that moves only when the flow pauses.
  final class Clock: @unchecked Sendable {
    private let seconds = Mutex(1000.0)
    private(set) var pauses: [Double] = []
    var now: Double { seconds.withLock { $0 } }
    func pause(_ interval: Double) {
      pauses.append(interval)
      seconds.withLock { $0 += interval }
    }
  }

  func acquisition(_ candidates: [AccountID], count: Int = 1, wait: Double = 0, clock: Clock) -> LeaseAcquisition {
    var acquisition = LeaseAcquisition(candidates: candidates, count: count, waitSeconds: wait, heldTTLSeconds: 30)
    acquisition.clock = { clock.now }
    acquisition.pause = { clock.pause($0) }
    return acquisition
  }

  let holder = LeaseHolder(host: "here", pid: 7)

  @Test func theFirstFreeAccountIsTakenWithItsSessionProved() throws {
    let world = try World()
    let clock = Clock()
    var said: [String] = []
    let (grant, sessions) = try acquisition([qa1, qa2], clock: clock).acquire(
      from: world.leases, holder: holder, flow: world.flow, notice: { said.append($0) })
    #expect(grant.accounts == [qa1] && sessions.map(\.id) == [qa1])
    #expect(world.host.operations == ["check"])
    #expect(said.isEmpty && clock.pauses.isEmpty)
    #expect(try world.leases.lease(of: qa1, now: Self.start)?.holder == holder)
  }

  /// As the holder, the flow logs an expired session in again (another command may not).
  @Test func theHolderLogsItsExpiredAccountInAgain() throws {
    let world = try World(expired: true)
    let (_, sessions) = try acquisition([qa1], clock: Clock()).acquire(
      from: world.leases, holder: holder, flow: world.flow, notice: { _ in })
    #expect(world.host.operations == ["login"])
    #expect(sessions.first?.origin == .loggedInAgain)
  }

  @Test func anAccountThatCannotLogInIsSkippedSaidAndAnotherTaken() throws {
    let world = try World(unremembered: ["qa1"], expired: true)
    var said: [String] = []
    let (grant, _) = try acquisition([qa1, qa2], clock: Clock()).acquire(
      from: world.leases, holder: holder, flow: world.flow, notice: { said.append($0) })
    #expect(grant.accounts == [qa2])
    #expect(said.count == 1 && said[0].hasPrefix("accounts: lease: skipped qa1@corp: "), "\(said)")
    // With none left, the last failure is the error itself, unsaid.
    let alone = try World(unremembered: ["qa1"], expired: true)
    var quiet: [String] = []
    #expect(throws: SessionFailure.expired(subject: "qa1@corp", message: "its expiry passed")) {
      try acquisition([qa1], clock: Clock()).acquire(
        from: alone.leases, holder: holder, flow: alone.flow, notice: { quiet.append($0) })
    }
    #expect(quiet.isEmpty)
  }

  @Test func aCheckRefusesAnAccountBeforeItsSessionIsAskedFor() throws {
    let world = try World()
    let (grant, _) = try acquisition([qa1, qa2], clock: Clock()).acquire(
      from: world.leases, holder: holder, flow: world.flow,
      check: { if $0 == self.qa1 { throw CommandError(.loginRequired, "not renewable") } }, notice: { _ in })
    #expect(grant.accounts == [qa2])
    #expect(world.host.operations == ["login"], "qa1 was never asked for")
  }

  /// --wait 1s on accounts another holder keeps: exit 10 after a second of pauses, not at once
  /// and not later, naming the holder; the pauses double from 50 ms to half a second.
  @Test func waitingForAHeldAccountEndsWithExit10AfterTheWait() throws {
    let world = try World()
    world.leases.hold(qa1, host: "ci-9")
    let clock = Clock()
    let error = #expect(throws: CommandError.self) {
      try acquisition([qa1], wait: 1, clock: clock).acquire(from: world.leases, holder: holder, flow: world.flow, notice: { _ in })
    }
    #expect(error?.status == .noAccountFree)
    #expect(error?.message.hasPrefix("no account free: qa1@corp held by ci-9:99 since ") == true, "\(error?.message ?? "")")
    #expect(error?.fix == "wait longer with --wait, or see who holds them with `accounts leases`")
    let waited = clock.pauses.reduce(0, +)
    #expect(abs(waited - 1) < 1e-9, "\(clock.pauses)")
    #expect(Array(clock.pauses.prefix(4)) == [0.05, 0.1, 0.2, 0.4])
    #expect(world.host.calls.isEmpty)
  }

  @Test func withoutAWaitAMomentsContentionIsStillWaitedOut() throws {
    let world = try World()
    world.leases.beingTaken = [qa1]
    let clock = Clock()
    let error = #expect(throws: CommandError.self) {
      try acquisition([qa1], clock: clock).acquire(from: world.leases, holder: holder, flow: world.flow, notice: { _ in })
    }
    #expect(abs(clock.pauses.reduce(0, +) - LeaseAcquisition.leastWaitSeconds) < 1e-9)
    #expect(error?.message == "no account free: qa1@corp being taken")
    #expect(error?.fix == "wait for one with --wait (e.g. --wait 10m); see who holds them with `accounts leases`")
  }

  @Test func anAccountFreedWhileWaitingIsTaken() throws {
    let world = try World()
    world.leases.hold(qa1)
    let clock = Clock()
    var acquisition = acquisition([qa1], wait: 10, clock: clock)
    acquisition.pause = { interval in
      clock.pause(interval)
      if clock.pauses.count == 3 { world.leases.free(self.qa1) }
    }
    let (grant, _) = try acquisition.acquire(from: world.leases, holder: holder, flow: world.flow, notice: { _ in })
    #expect(grant.accounts == [qa1] && clock.pauses.count == 3)
  }

  @Test func severalBusyAccountsAreNamedThreeAtMost() {
    let busy = (1...5).map { BusyAccount(account: AccountID(user: "qa\($0)", backend: "corp"), record: nil) }
    let error = LeaseError.noAccountFree(busy, count: 2, waited: false)
    #expect(error.message == "not 2 accounts free: qa1@corp being taken, qa2@corp being taken, qa3@corp being taken and 2 more")
  }
}
