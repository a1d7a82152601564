import Foundation
import TestSupport
import Testing

@testable import SecretService

/// The watchdog of one Secret Service call: it cancels the call when its time is up, and stops at
/// once when the call finishes in time.
@Suite(.blocking) struct DeadlineTests {
  @Test func cancelsWhenTheTimeIsUp() {
    let deadline = Deadline(seconds: 0.05, failure: .timedOut(operation: "test", seconds: 0.05))
    let end = Date().addingTimeInterval(10)
    while !deadline.isCancelled, Date() < end { usleep(1000) }
    #expect(deadline.isCancelled)
    #expect(deadline.expired)
  }

  @Test func aCallThatFinishesInTimeIsNotCancelled() {
    var deadline: Deadline? = Deadline(seconds: 60, failure: .timedOut(operation: "test", seconds: 60))
    #expect(deadline?.isCancelled == false)
    let started = Date()
    deadline = nil  // the call finished: the watchdog must stop now, not after its 60 s
    #expect(Date().timeIntervalSince(started) < 30)
    let again = Deadline(seconds: 5, failure: .timedOut(operation: "test", seconds: 5))
    usleep(10_000)
    #expect(!again.isCancelled && !again.expired)
  }
}
