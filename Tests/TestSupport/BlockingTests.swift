import Foundation
import Testing

/// Threads of the test process's own for tests that block one: waiting for a child process, a
/// pipe, a pseudo-terminal or a daemon.
///
/// Swift Testing runs every test on Swift concurrency's cooperative pool, one thread per core.
/// An end-to-end test spends nearly all its time blocked in `waitpid` or `read`, so on a 2-core
/// machine two waiting tests held the whole pool: the CPU sat two-thirds idle and even pure
/// unit tests queued behind them for minutes. Suites marked `.blocking` run on this pool
/// instead, which is as wide as the number of such tests worth running at once; the
/// cooperative pool stays free for the tests that compute.
public final class BlockingTestExecutor: TaskExecutor, @unchecked Sendable {
  /// How many blocking tests run at once: enough to keep two cores busy while most of them
  /// wait, few enough that a test's own deadlines (a command bounded to 2 s) are not starved.
  public static let width = ProcessInfo.processInfo.environment["ACCOUNTS_TEST_WIDTH"].flatMap(Int.init) ?? 8

  public static let shared = BlockingTestExecutor(threads: width)

  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var next = 0

  private init(threads: Int) {
    for index in 0..<max(1, threads) {
      let thread = Thread { [unowned self] in self.work() }
      thread.name = "blocking-tests-\(index)"
      thread.start()
    }
  }

  public func enqueue(_ job: UnownedJob) {
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  private func work() {
    while true {
      condition.lock()
      while next == jobs.count { condition.wait() }
      let job = jobs[next]
      next += 1
      if next == jobs.count {  // drained: drop the consumed prefix
        jobs.removeAll(keepingCapacity: true)
        next = 0
      }
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}

/// Runs a suite's tests on `BlockingTestExecutor`: `@Suite(.blocking)`.
public struct BlockingTrait: SuiteTrait, TestTrait, TestScoping {
  public var isRecursive: Bool { false }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
  }
}

extension Trait where Self == BlockingTrait {
  /// The suite's tests block their thread (child processes, pipes, terminals): run them on
  /// threads of their own, not on the cooperative pool.
  public static var blocking: Self { Self() }
}
