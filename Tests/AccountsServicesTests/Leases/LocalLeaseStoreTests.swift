@testable import AccountsServices
@testable import AccountsContract
import AccountsSystem
import Foundation
import TestSupport
import Testing

@testable import AccountsCore

extension LocalLeaseTests {
  /// The local lease store within one process: each store instance opens its own descriptors,
  /// and open file description locks conflict between descriptors as they do between processes.
  @Suite(.blocking, .withoutSpawnsElsewhere) struct LocalLeaseStoreTests {
    @Test func aHeldLeaseKeepsEveryOtherAcquirerOutUntilItEnds() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let grant = try #require(try sandbox.store().take([qa(1)]))
      #expect(grant.records.map(\.kind) == [.held])
      #expect(!grant.inheritedDescriptors.isEmpty)
      let other = sandbox.store()
      let busy = try #require(try other.busy([qa(1)]))
      #expect(busy == [BusyAccount(account: qa(1), record: grant.records[0])])
      grant.end()
      let next = try #require(try other.take([qa(1)]))
      #expect(next.records[0].fence > grant.records[0].fence)
    }

    /// Asked for many accounts (`list` of a large index), the store lists its directory once
    /// rather than opening a file per account: the same live leases come back either way.
    @Test func theLeasesOfManyAccountsAreTheSameAsOfEachOne() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let held = try #require(try store.take([qa(3), qa(40)], ttl: 60))
      let expired = try #require(try store.take([qa(7)], ttl: 1))
      let many = (1...(LocalLeaseStore.accountsLookedUpByName + 10)).map(qa)
      let later = leaseNow.adding(seconds: 30)
      #expect(try store.leases(of: many, now: later) == held.records.sorted { $0.account < $1.account })
      #expect(try store.leases(of: [qa(40), qa(7), qa(3)], now: later) == held.records.sorted { $0.account < $1.account })
      #expect(try store.leases(of: many, now: leaseNow) == (held.records + expired.records).sorted { $0.account < $1.account })
      #expect(try store.leases(of: (100...200).map(qa), now: later) == [])
    }

    @Test func aDetachedLeaseLivesUntilItsExpiryAndThenFrees() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let grant = try #require(try store.take([qa(1)], ttl: 60))
      #expect(grant.inheritedDescriptors.isEmpty)
      #expect(grant.records[0].expiresAt == leaseNow.adding(seconds: 60))
      grant.end()  // a detached lease does not live in the grant
      let lastSecond = leaseNow.adding(seconds: 59)
      #expect(try store.busy([qa(1)], now: lastSecond)?.map(\.record) == [grant.records[0]])
      #expect(try store.leases(now: lastSecond) == grant.records)
      let expiry = leaseNow.adding(seconds: 60)
      #expect(try store.leases(now: expiry) == [])
      #expect(try store.take([qa(1)], now: expiry) != nil)
    }

    @Test func releaseFreesADetachedLeaseAndAnUnknownIDFreesNothing() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let grant = try #require(try store.take([qa(1), qa(2)], ttl: 600))
      for wrong in ["aaaaaaaaaaaaaaaa", "../../etc/passwd", "", grant.lease.uppercased(), grant.lease + "a"] {
        #expect(throws: LeaseError.unknown(lease: wrong)) { try store.release(lease: wrong, now: leaseNow) }
      }
      #expect(try store.leases(now: leaseNow).count == 2)
      #expect(try store.release(lease: grant.lease, now: leaseNow) == [qa(1), qa(2)])
      #expect(try store.leases(now: leaseNow) == [])
      #expect(throws: LeaseError.unknown(lease: grant.lease)) { try store.release(lease: grant.lease, now: leaseNow) }
      #expect(try store.take([qa(1), qa(2)]) != nil)
    }

    @Test func releaseRefusesAHeldLeaseAndAnExpiredOne() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let held = try #require(try store.take([qa(1)]))
      #expect(throws: LeaseError.held(lease: held.lease, holder: probeHolder)) {
        try store.release(lease: held.lease, now: leaseNow)
      }
      #expect(try store.busy([qa(1)]) != nil)
      held.end()
      #expect(throws: LeaseError.unknown(lease: held.lease)) { try store.release(lease: held.lease, now: leaseNow) }

      let detached = try #require(try store.take([qa(2)], ttl: 10))
      let expiry = leaseNow.adding(seconds: 10)
      #expect(throws: LeaseError.expired(lease: detached.lease, at: expiry)) {
        try store.release(lease: detached.lease, now: expiry)
      }
    }

    @Test func theFenceGrowsAcrossKindsReleasesExpiriesAndALostCounter() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      var clock: Int64 = 0
      let store = sandbox.store(fenceFloor: { clock })
      var fences: [UInt64] = []
      var now = leaseNow
      func record(_ grant: LeaseGrant?) throws {
        fences.append(try #require(grant).records[0].fence)
      }
      try record(store.take([qa(1)], now: now))  // held, ended by the grant's deinit
      let detached = try #require(try store.take([qa(1)], ttl: 5, now: now))
      fences.append(detached.records[0].fence)
      _ = try store.release(lease: detached.lease, now: now)
      try record(store.take([qa(1)], ttl: 5, now: now))
      now = now.adding(seconds: 5)  // expired
      try record(store.take([qa(1)], now: now))
      let fenceFile = store.files.files(of: qa(1)).fence
      unlink(fenceFile)  // lost
      try record(store.take([qa(1)], now: now))
      try Data("{\"fence\": oops".utf8).write(to: URL(fileURLWithPath: fenceFile))  // corrupt
      try record(store.take([qa(1)], now: now))
      try Data("{\"version\":1,\"fence\":1}\n".utf8).write(to: URL(fileURLWithPath: fenceFile))  // set back
      try record(store.take([qa(1)], now: now))
      // Counter and record gone (a released lease keeps no record): the copy in the lock file.
      let released = try #require(try store.take([qa(1)], ttl: 5, now: now))
      fences.append(released.records[0].fence)
      _ = try store.release(lease: released.lease, now: now)
      unlink(fenceFile)
      try record(store.take([qa(1)], now: now))
      // Every copy lost: the count restarts from the clock, above anything it reached.
      let again = try #require(try store.take([qa(1)], ttl: 5, now: now))
      fences.append(again.records[0].fence)
      _ = try store.release(lease: again.lease, now: now)
      unlink(fenceFile)
      let lock = open(store.files.files(of: qa(1)).lock, O_WRONLY)
      #expect(pwrite(lock, "torn", 4, 0) == 4)
      close(lock)
      clock = 5_000
      try record(store.take([qa(1)], now: now))
      #expect(fences.count == 11)
      #expect(fences[..<10].allSatisfy { $0 <= 10 })  // the copies kept the count
      #expect(zip(fences, fences.dropFirst()).allSatisfy { $0 < $1 }, "\(fences)")
      #expect(fences[0] == 1)
      #expect(fences[10] == 5_000)
    }

    /// The whole directory gone (the runtime directory is cleared at logout and at reboot):
    /// the next fence is the clock in milliseconds, not 1 again, and one past the last when
    /// the clock is behind it.
    @Test func aFenceAfterTheDirectoryWasClearedIsAtLeastTheClock() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      var clock: Int64 = 1_800_000_000_000
      let store = sandbox.store(fenceFloor: { clock })
      let first = try #require(try store.take([qa(1)], ttl: 5)).records[0].fence
      #expect(first == 1_800_000_000_000)
      try FileManager.default.removeItem(atPath: sandbox.directory)
      clock += 1_000
      let second = try #require(try store.take([qa(1)], ttl: 5)).records[0].fence
      #expect(second == 1_800_000_001_000)
      clock -= 10_000  // set back, with the files there: one more than the last
      let third = try #require(try store.take([qa(1)], ttl: 5, now: leaseNow.adding(seconds: 10))).records[0].fence
      #expect(third == second + 1)
    }

    @Test(arguments: ["torn", "lost"])
    func aBrokenCopyWithTheCounterThereCountsOnFromTheCounter(_ damage: String) throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      var fences: [UInt64] = []
      for _ in 0..<3 {
        let grant = try #require(try store.take([qa(1)], ttl: 5))
        fences.append(grant.records[0].fence)
        _ = try store.release(lease: grant.lease, now: leaseNow)  // no record keeps the fence
      }
      let lock = open(store.files.files(of: qa(1)).lock, O_WRONLY)
      #expect(lock >= 0)
      if damage == "torn" {
        #expect(pwrite(lock, "00000x", 6, 0) == 6)  // a crash in the middle of the copy's write
      } else {
        #expect(ftruncate(lock, 0) == 0)
      }
      close(lock)
      let next = try #require(try store.take([qa(1)]))
      #expect(fences == [1, 2, 3])
      #expect(next.records[0].fence == 4, "the counter file still says 3: one more, not the clock's restart")
    }

    @Test func aBusyLockOverAnExpiredLeaseIsAnAccountBeingTakenNotItsOldHolder() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let detached = try #require(try store.take([qa(1)], ttl: 5))
      let expiry = leaseNow.adding(seconds: 5)
      // Another acquirer has the account's lock for the instant it decides.
      let other = try FileDescriptor.open(store.files.files(of: qa(1)).lock, O_RDWR)
      defer { other.close() }
      #expect(try other.tryLockWholeFile())
      let beforeExpiry = try #require(try sandbox.store().busy([qa(1)], now: leaseNow.adding(seconds: 4)))
      #expect(beforeExpiry == [BusyAccount(account: qa(1), record: detached.records[0])], "a live lease names its holder")
      let busy = try #require(try sandbox.store().busy([qa(1)], now: expiry))
      #expect(busy == [BusyAccount(account: qa(1), record: nil)], "the expired lease's holder is gone: no name to give")
    }

    @Test func countTakesAllOrNoneAndSkipsBusyCandidatesInOrder() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let middle = try #require(try store.take([qa(2)]))
      let busy = try #require(try store.busy([qa(1), qa(2), qa(3)], count: 3))
      #expect(busy.map(\.account) == [qa(2)])
      #expect(try store.leases(now: leaseNow).map(\.account) == [qa(2)])  // nothing else was taken
      let pair = try #require(try store.take([qa(1), qa(2), qa(3), qa(4)], count: 2))
      #expect(pair.accounts == [qa(1), qa(3)])
      #expect(Set(pair.records.map(\.lease)) == [pair.lease])
      #expect(try store.take([qa(4), qa(4)], count: 1)?.accounts == [qa(4)])
      middle.end()
    }

    @Test func badArgumentsAreUsageErrors() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      for (accounts, count, ttl) in [
        ([qa(1)], 0, nil), ([qa(1), qa(1)], 2, nil), ([], 1, nil), ([qa(1)], 1, 0.0 as Double?),
      ] {
        #expect(throws: CommandError.self) {
          _ = try store.tryAcquire(accounts, count: count, holder: probeHolder, ttl: ttl, now: leaseNow)
        }
      }
      #expect(try store.leases(now: leaseNow) == [])
    }

    @Test func leasesListsOnlyLiveLeasesWithTheirRecords() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      #expect(try store.leases(now: leaseNow) == [])  // no directory yet
      let held = try #require(try store.take([qa(1)]))
      let detached = try #require(try store.take([qa(2)], ttl: 30))
      let expired = try #require(try store.take([qa(3)], ttl: 1, now: leaseNow.adding(seconds: -1)))
      let ended = try #require(try store.take([qa(4)]))
      ended.end()
      #expect(try store.leases(now: leaseNow) == held.records + detached.records)
      #expect(expired.records[0].kind == .detached)
      let record = held.records[0]
      #expect(record.holder == probeHolder && record.since == leaseNow && record.expiresAt == nil)
      #expect(LeaseID.isValid(record.lease) && record.lease != detached.lease)
    }

    /// A held grant detached keeps its id and fences, gains its expiry, and never lets the
    /// accounts go in between: another acquirer finds them busy right after, as before.
    @Test func detachingAHeldLeaseKeepsItsIdAndFencesAndNeverFreesTheAccounts() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let held = try #require(try store.take([qa(1), qa(2)]))
      let detached = try store.detach(held, ttl: 60, now: leaseNow)
      #expect(detached.lease == held.lease)
      #expect(detached.records.map(\.fence) == held.records.map(\.fence))
      #expect(detached.records.allSatisfy { $0.expiresAt == leaseNow.adding(seconds: 60) })
      #expect(detached.inheritedDescriptors.isEmpty && held.inheritedDescriptors.isEmpty, "the locks were let go")
      #expect(try sandbox.store().take([qa(1)]) == nil, "still leased, now by its records")
      #expect(try store.leases(now: leaseNow).map(\.lease) == [held.lease, held.lease])
      #expect(throws: (any Error).self) { try store.detach(detached, ttl: 60, now: leaseNow) }
      #expect(try store.release(lease: held.lease, now: leaseNow).count == 2)
    }

    /// The session rules ask about one account at a time: its own record and lock answer,
    /// and another account's record, however malformed, is not read.
    @Test func oneAccountsLeaseIsReadFromItsOwnFilesOnly() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let held = try #require(try store.take([qa(1)]))
      try #require(try store.take([qa(2)], ttl: 60)).end()
      let record = try FileDescriptor.open(store.files.files(of: qa(2)).record, O_WRONLY | O_TRUNC)
      defer { record.close() }
      try record.writeAll(Array("garbage".utf8))
      #expect(try store.leases(of: [qa(1), qa(3)], now: leaseNow) == held.records)
      #expect(throws: FileError.self) { try store.leases(of: [qa(2)], now: leaseNow) }
      #expect(throws: FileError.self) { try store.leases(now: leaseNow) }
    }

    @Test func leasesTakesNoLockThatCouldMakeAnAcquirerFail() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let acquirer = sandbox.store()
      let directory = sandbox.directory
      _ = try #require(try acquirer.take([qa(1)]))  // the files exist from here on
      let done = ManagedAtomicFlag()
      let listing = Thread {
        let lister = LocalLeaseStore(directory: directory)
        while !done.isSet { _ = try? lister.leases(now: leaseNow) }
      }
      listing.start()
      defer { done.set() }
      // A take that fails is tried again once, 50 ms later: other tests of this process start
      // programs from their threads, and a forked child holds a copy of every descriptor (the
      // last grant's lock too) until its exec (see LeaseGrant.end). A lock the listing itself
      // took would still be there or come back: it fails both tries over 300 rounds.
      var failures = 0
      for _ in 0..<300 where try acquirer.take([qa(1)]) == nil {
        usleep(50_000)
        if try acquirer.take([qa(1)]) == nil { failures += 1 }
      }
      #expect(failures == 0)
    }

    @Test func hostileAccountIDsAreKeptWholeAndApart() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let hostile = [
        AccountID(user: "../../x/y", backend: "corp"), AccountID(user: "a\nb\u{0}c", backend: "corp"),
        AccountID(user: String(repeating: "long", count: 2000), backend: "corp"),
        AccountID(user: "../../x/y@corp", backend: "corp"),
      ]
      let grant = try #require(try store.take(hostile, ttl: 60))
      #expect(try Set(store.leases(now: leaseNow).map(\.account)) == Set(hostile))
      #expect(try store.busy([hostile[0]]) != nil)
      #expect(try store.take([AccountID(user: "..", backend: "corp")]) != nil)
      #expect(try store.release(lease: grant.lease, now: leaseNow) == hostile.sorted())
      let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory)
      #expect(names.allSatisfy { $0.utf8.count <= 70 && !$0.contains("..") })
    }

    @Test func leaseIDsAreSixteenBase32CharactersFromTheRandomSource() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let fixed = LocalLeaseStore(directory: sandbox.directory, random: { [UInt8](repeating: 0xFF, count: $0) })
      #expect(LeaseID.new(random: fixed.random) == String(repeating: "7", count: 16))
      let store = sandbox.store()
      let ids = (0..<50).map { _ in LeaseID.new(random: store.random) }
      #expect(Set(ids).count == 50)
      #expect(ids.allSatisfy(LeaseID.isValid))
    }

    @Test func theDirectoryIsTheRuntimeDirectoryElseTheStateDirectory() throws {
      #expect(
        try LocalLeaseStore.defaultDirectory(environment: ["XDG_RUNTIME_DIR": "/run/user/7", "HOME": "/home/q"])
          == "/run/user/7/accounts/leases")
      let none = "/nonexistent-runtime"
      #expect(
        try LocalLeaseStore.defaultDirectory(
          environment: ["XDG_RUNTIME_DIR": "relative", "HOME": "/home/q"], systemRuntime: none)
          == "/home/q/.local/state/accounts/leases")
    }

    /// A worker started without XDG_RUNTIME_DIR (env -i, cron, sudo -u) finds the same pool as
    /// the others: /run/user/UID when it is the user's own private directory.
    @Test func withoutTheVariableTheSystemsRuntimeDirectoryOfTheUser() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let own = sandbox.root + "/\(getuid())"
      let environment = ["HOME": "/home/q"]
      #expect(
        try LocalLeaseStore.defaultDirectory(environment: environment, systemRuntime: sandbox.root)
          == "/home/q/.local/state/accounts/leases", "none there")
      #expect(mkdir(own, 0o700) == 0)
      #expect(
        try LocalLeaseStore.defaultDirectory(environment: environment, systemRuntime: sandbox.root)
          == own + "/accounts/leases")
      #expect(chmod(own, 0o755) == 0)
      #expect(
        try LocalLeaseStore.defaultDirectory(environment: environment, systemRuntime: sandbox.root)
          == "/home/q/.local/state/accounts/leases", "not private: not taken")
      #expect(
        try LocalLeaseStore.defaultDirectory(
          environment: environment.merging(["XDG_RUNTIME_DIR": "/elsewhere"]) { $1 }, systemRuntime: sandbox.root)
          == "/elsewhere/accounts/leases", "the variable first")
    }
  }
}

/// A flag one thread sets and another polls.
final class ManagedAtomicFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}
