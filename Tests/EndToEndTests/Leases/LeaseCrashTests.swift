import Foundation
import TestSupport
import Testing

/// A process of accounts sent SIGSEGV or SIGABRT from outside ends, with the signal's status,
/// after Swift's crash report: it went on running after the report (a waiting `lease`, a
/// lease keeper renewing), on a state nobody could trust any more.
@Suite(.blocking) struct LeaseCrashTests {
  /// A `lease` waiting for a busy account, sent SIGABRT while it sleeps between tries.
  @Test func aWaitingLeaseSentSIGABRTEndsWithIt() throws {
    let world = try Fixture.pool(["qa1"])
    defer { world.close() }
    let root = world.sandbox.keyring.root
    let holding = try world.holding(["qa1"], ready: root + "/ready", release: root + "/go")
    defer {
      FileManager.default.createFile(atPath: root + "/go", contents: nil)
      holding.process.waitUntilExit()
    }
    #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: root + "/ready") })
    let waiting = try Holder(world.sandbox, ["lease", "qa1", "--wait", "2m", "--", "true"])
    #expect(waitUntil(seconds: 30) { procFile("/proc/\(waiting.pid)/wchan") == "hrtimer_nanosleep" }, "waiting")
    waiting.process.signal(SIGABRT)
    #expect(waitUntil(seconds: 60) { !waiting.process.isRunning }, "ended: \(waiting.standardError)")
    if waiting.process.isRunning { waiting.kill() }
    #expect(waiting.process.endedBySignal && waiting.process.terminationStatus == SIGABRT, "\(waiting.standardError)")
  }

  /// A lease keeper sent SIGSEGV while it renews ends (its lease then runs out within its ttl,
  /// which `leases` tells), rather than renewing on after its crash report.
  @Test func aLeaseKeeperSentSIGSEGVEnds() throws {
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let (holder, release) = try world.renewedLease(ttl: "900ms")  // well past its start
    defer { release() }
    let keeper = try #require(holder.keeper())
    kill(keeper, SIGSEGV)
    #expect(waitUntil(seconds: 60) { processIsGone(keeper) }, "ended: \(holder.standardError)")
    #expect(waitUntil(seconds: 10) { (try? world.leaseKeys()) == [] }, "its lease ran out")
  }
}
