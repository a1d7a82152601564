import TestSupport
@testable import AccountsCore
import Testing

/// SPEC §4, row by row, through the same two calls every command makes:
/// `SessionRules.transition` then `AccountBook.apply`.
@Suite struct SessionRulesTests {
  let alice = AccountID(user: "alice", backend: "corp")
  let bob = AccountID(user: "bob", backend: "corp")
  let now = Timestamp(secondsSince1970: 1_800_000_000)

  /// alice holds the slot with a token and a remembered password; bob is saved, remembered, has a token.
  func book() throws -> AccountBook {
    var book = AccountBook()
    try book.add(Account(id: alice, remembered: true, token: TokenRecord(expiresAt: nil), addedAt: now, session: ["userId": "1"]))
    try book.add(Account(id: bob, remembered: true, token: TokenRecord(expiresAt: nil), addedAt: now))
    book.apply(Transition(slot: .take), to: alice, at: now)
    return book
  }

  func apply(_ event: SessionEvent, to id: AccountID, _ book: inout AccountBook, login: LoginRecord? = nil) -> Transition {
    let transition = SessionRules.transition(for: event, hasRememberedPassword: book[id]?.remembered ?? false)
    book.apply(transition, to: id, login: login, at: now)
    return transition
  }

  @Test func loginSavesANewAccountWithItsTokenOnly() throws {
    var book = AccountBook()
    let carol = AccountID(user: "carol", backend: "corp")
    let login = LoginRecord(expiresAt: now.adding(seconds: 3600), session: ["userId": "7"])
    let transition = apply(.loggedIn(remember: false, takeSlot: false), to: carol, &book, login: login)
    #expect(transition == Transition(storeToken: true))
    let account = try #require(book[carol])
    #expect(account.token == TokenRecord(expiresAt: now.adding(seconds: 3600)))
    #expect(account.session == ["userId": "7"])
    #expect(account.lastLogin == now)
    #expect(!account.remembered)
    #expect(book.autoLogin == nil)
  }

  @Test func loginWithRememberStoresThePassword() throws {
    var book = AccountBook()
    let transition = apply(.loggedIn(remember: true, takeSlot: false), to: alice, &book, login: LoginRecord(expiresAt: nil))
    #expect(transition.storePassword && transition.storeToken && !transition.deletePassword)
    #expect(book[alice]?.remembered == true)
  }

  @Test func takingTheSlotDemotesThePreviousHolderKeepingItsPassword() throws {
    var book = try book()
    let transition = apply(.loggedIn(remember: false, takeSlot: true), to: bob, &book, login: LoginRecord(expiresAt: nil))
    #expect(transition.slot == .take)
    #expect(book.autoLogin == bob)
    #expect(book.previousAutoLogin == alice)
    #expect(book[alice]?.remembered == true, "the previous holder keeps its remembered password")
    #expect(book[alice]?.token != nil, "and its session: taking the slot is not logging alice out")
  }

  @Test func loggingOutClearsTokenAndSlotButKeepsThePassword() throws {
    var book = try book()
    let transition = apply(.loggedOut, to: alice, &book)
    #expect(transition == Transition(deleteToken: true, slot: .release))
    #expect(book.autoLogin == nil)
    #expect(book[alice]?.token == nil)
    #expect(book[alice]?.session == [:])
    #expect(book[alice]?.remembered == true)
  }

  @Test func loggingOutSomeoneElseLeavesTheSlotAlone() throws {
    var book = try book()
    _ = apply(.loggedOut, to: bob, &book)
    #expect(book.autoLogin == alice)
    #expect(book[bob]?.token == nil)
  }

  @Test func takeOverClearsSlotAndTokenAndNeverLogsInAgain() throws {
    var book = try book()
    let transition = apply(.takenOver, to: alice, &book)
    #expect(transition.next == .signedInElsewhere)
    #expect(SessionFailure(.kicked(message: ""), subject: "alice@corp", next: transition.next)?.status == .sessionEnded)
    #expect(!transition.storeToken && !transition.deletePassword)
    #expect(book.autoLogin == nil)
    #expect(book[alice]?.token == nil)
    #expect(book[alice]?.remembered == true)
  }

  /// Under a lease (issue 17) the account has one holder, so a take-over came from outside the
  /// pool: the remembered password logs in again once, the slot stays. Without a remembered
  /// password, or outside a lease, it is exactly the rule above.
  @Test func aTakeOverUnderALeaseLogsInAgainOnceWithTheRememberedPassword() throws {
    let leased = SessionRules.transition(for: .takenOver, hasRememberedPassword: true, leased: true)
    #expect(leased == Transition(deleteToken: true, next: .loginAgainOnce))
    #expect(
      SessionRules.transition(for: .takenOver, hasRememberedPassword: false, leased: true)
        == SessionRules.transition(for: .takenOver, hasRememberedPassword: false))
    #expect(SessionRules.transition(for: .takenOver, hasRememberedPassword: true).next == .signedInElsewhere)
    for event: SessionEvent in [.loggedOut, .tokenExpired, .passwordRejected, .upgradeRequired, .sessionReused] {
      for remembered in [true, false] {
        #expect(
          SessionRules.transition(for: event, hasRememberedPassword: remembered, leased: true)
            == SessionRules.transition(for: event, hasRememberedPassword: remembered),
          "a lease changes only the take-over: \(event)")
      }
    }
  }

  @Test func expiryWithARememberedPasswordLogsInAgainOnceKeepingTheSlot() throws {
    var book = try book()
    let transition = apply(.tokenExpired, to: alice, &book)
    #expect(transition.next == .loginAgainOnce)
    #expect(transition.slot == .keep)
    #expect(book.autoLogin == alice)
    #expect(book[alice]?.token == nil)
  }

  @Test func expiryWithoutAPasswordEndsWithExit5AndAnEmptySlot() throws {
    var book = try book()
    book.update(alice) { $0.remembered = false }
    let transition = apply(.tokenExpired, to: alice, &book)
    #expect(transition.next == .loginRequired)
    #expect(SessionFailure(.sessionExpired(message: ""), subject: "alice@corp", next: transition.next) == .expired(subject: "alice@corp", message: ""))
    #expect(book.autoLogin == nil)
    #expect(book[alice]?.token == nil)
  }

  @Test func wrongPasswordClearsFlagPasswordSlotAndToken() throws {
    var book = try book()
    let transition = apply(.passwordRejected, to: alice, &book)
    #expect(transition == Transition(deleteToken: true, deletePassword: true, slot: .release, next: .credentialsRejected))
    #expect(SessionFailure(.wrongPassword(message: ""), subject: "alice@corp", next: transition.next) == .credentialsRejected(subject: "alice@corp", message: "", forgotten: true))
    #expect(book.autoLogin == nil)
    #expect(book[alice]?.remembered == false)
    #expect(book[alice]?.token == nil)
    #expect(book[alice] != nil, "the account itself stays saved")
  }

  @Test func upgradeRequiredChangesNothing() throws {
    var book = try book()
    let before = book
    let transition = apply(.upgradeRequired, to: alice, &book)
    #expect(transition == Transition(next: .upgradeRequired))
    #expect(SessionFailure(.upgradeRequired(message: "m", link: "l"), subject: "alice@corp", next: transition.next)?.status == .upgradeRequired)
    #expect(book == before)
  }

  @Test func theSlotHasOneHolderWhateverHappens() throws {
    // Random walks over every event and account: never two holders (by construction), and
    // the holder is always a saved account.
    let ids = [alice, bob, AccountID(user: "carol", backend: "test")]
    let events: [SessionEvent] = [
      .loggedIn(remember: true, takeSlot: true), .loggedIn(remember: false, takeSlot: false),
      .loggedIn(remember: false, takeSlot: true), .loggedOut, .takenOver, .tokenExpired,
      .passwordRejected, .upgradeRequired,
    ]
    var generator = SplitMix(seed: 42)
    for _ in 0..<200 {
      var book = AccountBook()
      for _ in 0..<30 {
        let id = ids[Int(generator.next() % UInt64(ids.count))]
        if generator.next() % 7 == 0 {
          book.remove(id)
        } else {
          _ = apply(events[Int(generator.next() % UInt64(events.count))], to: id, &book, login: LoginRecord(expiresAt: nil))
        }
        if let holder = book.autoLogin { #expect(book[holder] != nil) }
        if let previous = book.previousAutoLogin { #expect(book[previous] != nil) }
      }
    }
  }
}

