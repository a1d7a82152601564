@testable import AccountsContract
import TestSupport
@testable import AccountsCore
import Testing

/// SPEC §4 for sessions with a refresh token: the token's expiry is not the session's end.
@Suite struct SessionRulesRefreshTests {
  let record = LeaseRecord(
    account: AccountID(user: "alice", backend: "corp"), lease: "L2", holder: LeaseHolder(host: "ci-7", pid: 42),
    since: Timestamp(secondsSince1970: 1), expiresAt: nil, fence: 2)

  @Test func anExpiredTokenWithARefreshTokenDeletesNothingAndIsRenewed() {
    for remembered in [false, true] {
      let transition = SessionRules.transition(for: .tokenExpired, hasRememberedPassword: remembered, hasRefreshToken: true)
      #expect(transition == Transition(next: .loginAgainOnce), "remembered: \(remembered)")
    }
  }

  @Test func onlyTheHolderRenewsALeasedSessionAndNobodyDeletesItsRefreshToken() {
    let theirs = SessionRules.transition(
      for: .tokenExpired, hasRememberedPassword: true, hasRefreshToken: true, lease: .theirs(record))
    #expect(theirs == Transition(next: .leasedByAnother(record)))
    let lost = SessionRules.transition(
      for: .tokenExpired, hasRememberedPassword: false, hasRefreshToken: true, lease: .lost(record))
    #expect(lost == Transition(next: .leaseLost(record)))
    let ours = SessionRules.transition(
      for: .tokenExpired, hasRememberedPassword: false, hasRefreshToken: true, lease: .ours)
    #expect(ours == Transition(next: .loginAgainOnce))
  }

  @Test func aRefusedRefreshTokenIsAnExpiryWithoutOne() {
    let leases: [LeaseStanding] = [.free, .ours, .theirs(record), .lost(record)]
    for lease in leases {
      for remembered in [false, true] {
        let refused = SessionRules.transition(
          for: .refreshRejected, hasRememberedPassword: remembered, hasRefreshToken: true, lease: lease)
        let expired = SessionRules.transition(for: .tokenExpired, hasRememberedPassword: remembered, lease: lease)
        #expect(refused == expired, "\(lease) remembered: \(remembered)")
        #expect(refused.deleteToken || refused.next != .loginRequired)
      }
    }
  }

  @Test func aRenewalByRefreshStoresTheTokenAndKeepsTheRestAsItWas() {
    let transition = SessionRules.transition(for: .refreshed, hasRememberedPassword: true, hasRefreshToken: true)
    #expect(transition == Transition(storeToken: true, keepsRefreshToken: true))
    #expect(transition.slot == .keep && !transition.storePassword && !transition.deletePassword)
  }

  @Test func theLeaseMattersToAnExpiryWithARefreshTokenEvenUnclaimed() {
    #expect(SessionRules.leaseMatters(to: .tokenExpired, hasRememberedPassword: false, hasRefreshToken: true, claimed: false))
    #expect(!SessionRules.leaseMatters(to: .tokenExpired, hasRememberedPassword: false, hasRefreshToken: false, claimed: false))
    #expect(!SessionRules.leaseMatters(to: .refreshRejected, hasRememberedPassword: false, claimed: false))
    #expect(SessionRules.leaseMatters(to: .refreshRejected, hasRememberedPassword: true, claimed: false))
  }

  @Test func aLoginAfterARenewableSessionDropsTheRefreshTokenUnlessItGotOne() {
    let now = Timestamp(secondsSince1970: 1_800_000_000)
    let alice = AccountID(user: "alice", backend: "corp")
    var book = AccountBook()
    try? book.add(Account(id: alice, token: TokenRecord(expiresAt: nil, refreshable: true), addedAt: now))
    let login = SessionRules.transition(for: .loggedIn(remember: false, takeSlot: false), hasRememberedPassword: false, hasRefreshToken: true)
    book.apply(login, to: alice, login: LoginRecord(expiresAt: nil), at: now)
    #expect(book[alice]?.token?.refreshable == false)
    book.apply(login, to: alice, login: LoginRecord(expiresAt: nil, refreshable: true), at: now)
    #expect(book[alice]?.token?.refreshable == true)
    let refreshed = SessionRules.transition(for: .refreshed, hasRememberedPassword: false, hasRefreshToken: true)
    book.apply(refreshed, to: alice, login: LoginRecord(expiresAt: nil), at: now)
    #expect(book[alice]?.token?.refreshable == true, "a renewal that got no new refresh token keeps the old one")
  }
}
