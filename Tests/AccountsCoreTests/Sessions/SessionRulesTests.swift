@testable import AccountsContract
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

  /// git found the token rejected and erased it: the token goes, the password stays, and the
  /// account keeps the slot, so that `accounts login` (or the remembered password at the next
  /// use) makes it the working one again rather than leaving no account in use.
  @Test func aRejectedTokenIsForgottenButTheSlotIsKept() throws {
    var book = try book()
    let transition = apply(.tokenRejected, to: alice, &book)
    #expect(transition == Transition(deleteToken: true))
    #expect(book.autoLogin == alice)
    #expect(book[alice]?.token == nil)
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

  /// Under its own lease the command is the account's one holder, so a take-over came from
  /// outside the pool: the remembered password logs in again once, the slot stays. Without a
  /// remembered password, or outside a lease, it is exactly the rule above.
  @Test func aTakeOverUnderALeaseLogsInAgainOnceWithTheRememberedPassword() throws {
    let leased = SessionRules.transition(for: .takenOver, hasRememberedPassword: true, lease: .ours)
    #expect(leased == Transition(deleteToken: true, next: .loginAgainOnce))
    #expect(
      SessionRules.transition(for: .takenOver, hasRememberedPassword: false, lease: .ours)
        == SessionRules.transition(for: .takenOver, hasRememberedPassword: false))
    #expect(SessionRules.transition(for: .takenOver, hasRememberedPassword: true).next == .signedInElsewhere)
    for event: SessionEvent in [.loggedOut, .tokenRejected, .tokenExpired, .passwordRejected, .upgradeRequired, .sessionReused] {
      for remembered in [true, false] {
        #expect(
          SessionRules.transition(for: event, hasRememberedPassword: remembered, lease: .ours)
            == SessionRules.transition(for: event, hasRememberedPassword: remembered),
          "holding the lease changes only the take-over: \(event)")
      }
    }
  }

  /// Nobody but the holder logs a leased account in again: a take-over seen by anyone else is
  /// the rule above (the holder signed in); an expiry clears the token but logs in no more.
  @Test func anotherHoldersAccountIsNeverLoggedInAgain() throws {
    let record = LeaseRecord(
      account: alice, lease: "L2", holder: LeaseHolder(host: "ci-7", pid: 42), since: now, expiresAt: nil, fence: 2)
    for remembered in [true, false] {
      let takenOver = SessionRules.transition(for: .takenOver, hasRememberedPassword: remembered, lease: .theirs(record))
      #expect(takenOver == Transition(deleteToken: true, slot: .release, next: .signedInElsewhere))
    }
    #expect(
      SessionRules.transition(for: .tokenExpired, hasRememberedPassword: true, lease: .theirs(record))
        == Transition(deleteToken: true, next: .leasedByAnother(record)))
    #expect(
      SessionRules.transition(for: .tokenExpired, hasRememberedPassword: false, lease: .theirs(record))
        == SessionRules.transition(for: .tokenExpired, hasRememberedPassword: false), "nothing to log in with anyway")
    for event: SessionEvent in [.loggedOut, .passwordRejected, .upgradeRequired, .sessionReused, .loggedIn(remember: true, takeSlot: true)] {
      #expect(
        SessionRules.transition(for: event, hasRememberedPassword: true, lease: .theirs(record))
          == SessionRules.transition(for: event, hasRememberedPassword: true),
        "decided before the act (`refusal`): \(event)")
    }
  }

  /// A holder that learns its lease was lost stops at once: neither a take-over nor an expiry
  /// logs it in again, and the account is left to the new holder.
  @Test func aHolderThatLostItsLeaseStopsAtOnce() throws {
    let record = LeaseRecord(
      account: alice, lease: "L2", holder: LeaseHolder(host: "ci-8", pid: 7), since: now, expiresAt: nil, fence: 9)
    for lost: LeaseRecord? in [record, nil] {
      for remembered in [true, false] {
        let takenOver = SessionRules.transition(for: .takenOver, hasRememberedPassword: remembered, lease: .lost(lost))
        #expect(takenOver == Transition(deleteToken: true, slot: .release, next: .leaseLost(lost)))
        let expired = SessionRules.transition(for: .tokenExpired, hasRememberedPassword: remembered, lease: .lost(lost))
        #expect(expired == Transition(deleteToken: true, next: .leaseLost(lost)))
        #expect(SessionFailure(.kicked(message: ""), on: alice, next: takenOver.next)?.status == .sessionEnded)
      }
    }
  }

  /// Before the act: the holder may do anything; nobody else logs a leased account in or out
  /// or forgets it unless forced; a holder that lost its lease logs in no more, forced or not.
  @Test func whoMayActOnALeasedAccount() throws {
    let record = LeaseRecord(
      account: alice, lease: "L2", holder: LeaseHolder(host: "ci-7", pid: 42), since: now, expiresAt: nil, fence: 2)
    for act: SessionAct in [.logIn, .logOut, .forget] {
      for forced in [true, false] {
        #expect(SessionRules.refusal(of: act, lease: .free, forced: forced) == nil)
        #expect(SessionRules.refusal(of: act, lease: .ours, forced: forced) == nil)
        #expect(SessionRules.refusal(of: act, lease: .theirs(record), forced: forced) == (forced ? nil : .leasedByAnother(record)))
      }
    }
    #expect(SessionRules.refusal(of: .logIn, lease: .lost(record), forced: true) == .leaseLost(record))
    #expect(SessionRules.refusal(of: .logIn, lease: .lost(nil), forced: false) == .leaseLost(nil))
    #expect(SessionRules.refusal(of: .logOut, lease: .lost(nil), forced: false) == nil)
    let refused = try #require(
      SessionFailure(refusing: .logIn, of: alice, next: .leasedByAnother(record), forcing: .login))
    #expect(refused.status == .failure)
    #expect(refused.message.hasPrefix("alice@corp is leased by ci-7:42 since "), "\(refused.message)")
    #expect(refused.fix?.contains("accounts login alice@corp --force") == true, "\(refused.fix ?? "")")
    let forceable = try #require(SessionFailure(refusing: .logOut, of: alice, next: .leasedByAnother(record), forcing: .thisCommand))
    #expect(forceable.fix == "wait for its command to end, or add --force")
  }

  /// Where a lease stands, from the store's record and the leases the command holds.
  @Test func theStandingComesFromTheRecordAndTheCommandsOwnLeases() {
    let record = LeaseRecord(
      account: alice, lease: "L1", holder: LeaseHolder(host: "h", pid: 1), since: now, expiresAt: nil, fence: 1)
    var other = record
    other.lease = "L2"
    #expect(LeaseStanding(of: alice, record: nil, held: [:]) == .free)
    #expect(LeaseStanding(of: alice, record: record, held: [:]) == .theirs(record))
    #expect(LeaseStanding(of: alice, record: record, held: [bob: "L1"]) == .theirs(record), "another account's lease")
    #expect(LeaseStanding(of: alice, record: record, held: [alice: "L1"]) == .ours)
    #expect(LeaseStanding(of: alice, record: other, held: [alice: "L1"]) == .lost(other))
    #expect(LeaseStanding(of: alice, record: nil, held: [alice: "L1"]) == .lost(nil))
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
      .loggedIn(remember: false, takeSlot: true), .loggedOut, .tokenRejected, .takenOver, .tokenExpired,
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

