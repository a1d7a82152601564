@testable import AccountsServices
import AccountsSystem
import Foundation
import TestSupport
import Testing

@testable import AccountsCore

extension LocalLeaseTests {
  /// The lease store's promises about processes, with real processes: acquirers that run at
  /// once, a holder killed with SIGKILL, an acquirer that exits while its command runs on.
  @Suite(.blocking, .withoutSpawnsElsewhere) struct LocalLeaseStoreProcessTests {
    @Test func twentyConcurrentAcquirersOfThreeAccountsNeverOverlap() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let witness = sandbox.root + "/witness"
      FileManager.default.createFile(atPath: witness, contents: nil)
      let accounts = (1...3).map { qa($0).description }
      let probes = try (0..<20).map { _ in
        try spawnInheriting([], [leaseProbe, "take", sandbox.directory, witness] + accounts)
      }
      #expect(probes.map { reap($0) } == Array(repeating: 0, count: 20))

      // Per account, the holders' lines must pair up: enter P, leave P, enter Q, leave Q, ...
      let lines = try String(contentsOfFile: witness, encoding: .utf8).split(separator: "\n")
      #expect(lines.count == 40)
      var inside: [Substring: Substring] = [:]  // account -> pid holding it
      for line in lines {
        let words = line.split(separator: " ")
        let (event, account, pid) = (words[0], words[1], words[2])
        if event == "enter" {
          #expect(inside[account] == nil, "\(account) entered by \(pid) while \(inside[account] ?? "") held it")
          inside[account] = pid
        } else {
          #expect(inside[account] == pid, "\(account) left by \(pid), held by \(inside[account] ?? "nobody")")
          inside[account] = nil
        }
      }
      #expect(inside.isEmpty)
      #expect(try sandbox.store().leases(now: .now()) == [])  // every holder gone: nothing live
    }

    @Test func aHolderKilledWithSIGKILLFreesTheAccountAtOnce() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let grant = try #require(try sandbox.store().take([qa(1)]))
      let child = try spawnInheriting(grant.inheritedDescriptors, ["/bin/sleep", "1000"])
      grant.end()  // only the child holds the lease now
      let other = sandbox.store()
      #expect(try other.busy([qa(1)])?.map(\.record) == [grant.records[0]])
      #expect(try other.leases(now: leaseNow) == grant.records)
      kill(child, SIGKILL)
      reap(child)  // the kernel closed the child's descriptors before it became a zombie
      #expect(try other.leases(now: leaseNow) == [])
      #expect(try other.take([qa(1)]) != nil)
    }

    @Test func aHeldLeaseOutlivesItsAcquirerWhileTheCommandRunsAndEndsWithIt() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let input = try closeOnExecPipeEnds()
      let output = try closeOnExecPipeEnds()
      let probe = try spawnInheriting(
        [], [leaseProbe, "spawn", sandbox.directory, qa(1).description, "/bin/sh", "-c", "read line"],
        input: input.read, output: output.write)
      close(input.read)
      close(output.write)
      let printed = try readToEnd(output.read)
      close(output.read)
      #expect(reap(probe) == 0)
      let fence = try #require(UInt64(printed.split(separator: " ").first ?? ""))

      // The acquirer is gone; the command it started holds the lease.
      let store = sandbox.store()
      let live = try store.leases(now: .now())
      #expect(live.map(\.account) == [qa(1)])
      #expect(live.first?.holder.pid == probe && live.first?.fence == fence)
      #expect(try store.busy([qa(1)]) != nil)

      // End the command (its `read` sees the end of its input), then wait for the account.
      close(input.write)
      let deadline = monotonicNanoseconds() + 20_000_000_000
      var grant: LeaseGrant?
      while grant == nil, monotonicNanoseconds() < deadline {
        grant = try store.take([qa(1)])
        if grant == nil {
          var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
          nanosleep(&pause, nil)
        }
      }
      #expect(try #require(grant).records[0].fence == fence + 1)
    }

    @Test func releaseChecksTheRecordAgainUnderTheLockAndLeavesANewerLeaseAlone() throws {
      let sandbox = try LeaseSandbox()
      defer { sandbox.remove() }
      let store = sandbox.store()
      let old = try #require(try store.take([qa(1)], ttl: 10))
      let paths = store.files.files(of: qa(1))
      // Hold qa1's lock as an acquirer deciding would, and let `release` of the expired lease
      // list its record and then wait for the lock (it sleeps between tries).
      let lock = try FileDescriptor.open(paths.lock, O_RDWR)
      var lockOpen = true
      defer { if lockOpen { lock.close() } }
      #expect(try lock.tryLockWholeFile())
      let expiry = leaseNow.adding(seconds: 10)
      let output = try closeOnExecPipeEnds()
      let releaser = try spawnInheriting(
        [], [leaseProbe, "release", sandbox.directory, old.lease, String(expiry.secondsSince1970)],
        output: output.write)
      close(output.write)
      #expect(awaitSleeping(releaser))
      // Meanwhile the expired account was taken by a newer lease.
      let newer = LeaseRecord(
        account: qa(1), lease: "bbbbbbbbbbbbbbbb", holder: probeHolder, since: expiry,
        expiresAt: expiry.adding(seconds: 100), fence: old.records[0].fence + 1)
      try store.files.replace(paths.record, with: LeaseRecordFile.encode(newer))
      lock.close()
      lockOpen = false
      let printed = try readToEnd(output.read)
      close(output.read)
      #expect(reap(releaser) == 1 << 8, "\(printed)")
      #expect(try store.leases(now: expiry) == [newer])
    }
  }
}

/// Waits until `pid` sleeps in clock_nanosleep(2) (a retry's pause), reading the system call it
/// is in from /proc; false if it exits or the deadline passes first.
func awaitSleeping(_ pid: pid_t) -> Bool {
  let deadline = monotonicNanoseconds() + 20_000_000_000
  while monotonicNanoseconds() < deadline {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8) else { return false }
    if text.hasPrefix("230 ") || text.hasPrefix("35 ") { return true }  // clock_nanosleep, nanosleep
    sched_yield()
  }
  return false
}
