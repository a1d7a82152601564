@testable import AccountsCore
import AccountsContract
import Testing

/// An account's own state, read from its record and the clock.
@Suite struct AccountTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)

  @Test func tokenStateFollowsTheClock() {
    var account = Account(id: AccountID(user: "a", backend: "b"), addedAt: now)
    #expect(account.tokenState(at: now) == .none)
    account.token = TokenRecord(expiresAt: nil)
    #expect(account.tokenState(at: now) == .valid(until: nil))
    account.token = TokenRecord(expiresAt: now.adding(seconds: 60))
    #expect(account.tokenState(at: now) == .valid(until: now.adding(seconds: 60)))
    #expect(account.tokenState(at: now.adding(seconds: 60)) == .expired(at: now.adding(seconds: 60)))
  }
}
