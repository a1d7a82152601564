@testable import AccountsServices
@testable import AccountsContract
import AccountsSystem
import Foundation
import Testing

@testable import AccountsCore

/// When `--refresh` renews a session and how long it waits after failures (the process itself
/// is run end to end in RefreshTests), and the order it is handed.
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

  @Test func theOrderCarriesNoSecretAndReadsBackAsWritten() throws {
    let order = TokenRefresher.Order(
      entries: [
        TokenRefresher.Entry(
          account: AccountID(user: "ali\"ce", backend: "corp"), file: TokenFile(path: "/run/user/1/accounts/tokens/a.token"),
          generation: "0123456789abcdef", loggedInAt: login, expiresAt: login.adding(seconds: 3), lease: "0f1e2d3c"),
        TokenRefresher.Entry(
          account: AccountID(user: "bob", backend: "corp"), file: TokenFile(path: "/run/b.token"), generation: nil,
          loggedInAt: nil, expiresAt: nil, lease: nil),
      ], checkMilliseconds: 1000, timeoutMilliseconds: 20_000)
    let line = order.encoded()
    #expect(line.last == 10 && line.filter { $0 == 10 }.count == 1, "one line")
    #expect(TokenRefresher.Order.decode(Array(line.dropLast())) == order)
    #expect(order.heldLeases == [AccountID(user: "ali\"ce", backend: "corp"): "0f1e2d3c"], "only the leased account")
    #expect(TokenRefresher.Order.decode(Array("{}".utf8)) == nil)
    let relative = String(decoding: line, as: UTF8.self).replacingOccurrences(of: "/run/b.token", with: "b.token")
    #expect(TokenRefresher.Order.decode(Array(relative.utf8.dropLast())) == nil, "a file is an absolute path")
  }
}
