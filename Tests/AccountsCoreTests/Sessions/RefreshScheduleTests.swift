@testable import AccountsContract
import AccountsSystem
import Foundation
import Testing

@testable import AccountsCore

/// When `--refresh` renews a session and how long it waits after failures (the process itself
/// is run end to end).
@Suite struct RefreshScheduleTests {
  let login = Timestamp(secondsSince1970: 1_800_000_000)

  @Test func aSessionIsRenewedAt80PercentOfItsLifetimeFromItsLogin() {
    let renewal = RefreshSchedule.renewalTime(loggedInAt: login, expiresAt: login.adding(seconds: 3600))
    #expect(abs(renewal! - (1_800_000_000 + 2880)) < 1e-3)
    let short = RefreshSchedule.renewalTime(loggedInAt: login, expiresAt: login.adding(seconds: 3))
    #expect(abs(short! - (1_800_000_000 + 2.4)) < 1e-3)
    #expect(RefreshSchedule.renewalTime(loggedInAt: login, expiresAt: nil) == nil, "no expiry: only checks")
    // No login time recorded (or one after the expiry): renewed at once, never after the end.
    #expect(RefreshSchedule.renewalTime(loggedInAt: nil, expiresAt: login) == 1_800_000_000)
    #expect(RefreshSchedule.renewalTime(loggedInAt: login.adding(seconds: 10), expiresAt: login) == 1_800_000_000)
  }

  @Test func failuresWaitOneSecondDoublingToAMinuteAndNeverPastALiveSessionsEnd() {
    let waits = (1...9).map { RefreshSchedule.backoff(failures: $0, secondsLeft: nil) }
    #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60])
    #expect(RefreshSchedule.backoff(failures: 1_000, secondsLeft: nil) == 60, "no overflow")
    #expect(RefreshSchedule.backoff(failures: 5, secondsLeft: 3.5) == 3.5, "one more try before the session ends")
    #expect(RefreshSchedule.backoff(failures: 5, secondsLeft: 0.2) == 16, "an ended session: the backoff alone")
    #expect(RefreshSchedule.backoff(failures: 1, secondsLeft: 100) == 1)
  }
}
