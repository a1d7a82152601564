import Foundation
import Testing

@testable import AccountsSystem

/// The one "run it on a thread, give up on it" primitive: a call that returns gives its value,
/// one that does not is abandoned at its deadline or when reported stuck, and the thread is not
/// used again after that.
@Suite struct CallThreadTests {
  @Test func callsRunInOrderOnOneThreadAndGiveTheirValues() throws {
    let calls = CallThread()
    defer { calls.finish() }
    let caller = pthread_self()
    var threads: [pthread_t] = []
    for index in 0..<3 {
      let value = try calls.run { () -> (Int, pthread_t) in (index * 10, pthread_self()) }.get()
      #expect(value.0 == index * 10)
      threads.append(value.1)
    }
    #expect(threads.allSatisfy { pthread_equal($0, threads[0]) != 0 }, "one thread for every call")
    #expect(pthread_equal(threads[0], caller) == 0, "not the caller's thread")
  }

  @Test func aCallPastItsDeadlineIsAbandonedAndSoIsEveryLaterOne() {
    let calls = CallThread()
    let release = Semaphore(value: 0)
    defer { release.post() }
    let stuck = calls.run(until: monotonicSeconds() + 0.05, late: "too slow") { release.wait() }
    #expect(throws: CallThread.Abandoned.self) { try stuck.get() }
    #expect(calls.abandonment == "too slow")
    var ran = false
    let later = calls.run { ran = true }
    guard case .failure(let abandoned) = later else {
      Issue.record("a call after an abandoned one ran")
      return
    }
    #expect(abandoned.reason == "too slow")
    #expect(!ran, "the later call's body never runs")
  }

  @Test func aCallReportedStuckEndsItsWaitWithTheReport() {
    let calls = CallThread()
    let entered = Semaphore(value: 0)
    let release = Semaphore(value: 0)
    defer { release.post() }
    // Another thread reports the call stuck once it is running; it has no deadline of its own.
    Thread.detachNewThread {
      entered.wait()
      calls.reportStuck("the provider left")
    }
    let result = calls.run {
      entered.post()
      release.wait()
    }
    guard case .failure(let abandoned) = result else {
      Issue.record("a stuck call returned a value")
      return
    }
    #expect(abandoned.reason == "the provider left")
  }

  @Test func aReportWithNoCallRunningChangesNothing() throws {
    let calls = CallThread()
    defer { calls.finish() }
    calls.reportStuck("nothing is running")
    #expect(calls.abandonment == nil)
    #expect(try calls.run { 42 }.get() == 42)
  }
}
