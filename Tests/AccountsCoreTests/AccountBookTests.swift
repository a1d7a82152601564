@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Testing

@Suite struct AccountBookTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)

  func book(_ names: [String]) throws -> AccountBook {
    var book = AccountBook()
    for name in names {
      let at = name.lastIndex(of: "@")!
      try book.add(Account(
        id: AccountID(user: String(name[..<at]), backend: String(name[name.index(after: at)...])), addedAt: now))
    }
    return book
  }

  @Test func keepsAccountsSortedAndRejectsDuplicates() throws {
    var book = try book(["zoe@corp", "alice@test", "alice@corp", "bob@corp"])
    #expect(book.accounts.map(\.id.description) == ["alice@corp", "alice@test", "bob@corp", "zoe@corp"])
    #expect(throws: AccountBookError.alreadySaved(AccountID(user: "bob", backend: "corp"))) {
      try book.add(Account(id: AccountID(user: "bob", backend: "corp"), addedAt: now))
    }
  }

  @Test func removingTheHolderEmptiesTheSlot() throws {
    var book = try book(["alice@corp", "bob@corp"])
    let alice = AccountID(user: "alice", backend: "corp")
    book.apply(Transition(slot: .take), to: alice, at: now)
    #expect(book.autoLogin == alice)
    #expect(book.remove(alice)?.id == alice)
    #expect(book.autoLogin == nil)
    #expect(book.remove(alice) == nil)
  }

  @Test func decodedPartsMustAgree() throws {
    let alice = Account(id: AccountID(user: "alice", backend: "corp"), addedAt: now)
    #expect(throws: AccountBookError.duplicate(alice.id)) {
      try AccountBook(accounts: [alice, alice], autoLogin: nil, previousAutoLogin: nil)
    }
    let ghost = AccountID(user: "ghost", backend: "corp")
    #expect(throws: AccountBookError.slotHolderMissing(ghost)) {
      try AccountBook(accounts: [alice], autoLogin: ghost, previousAutoLogin: nil)
    }
    let book = try AccountBook(accounts: [alice], autoLogin: alice.id, previousAutoLogin: ghost)
    #expect(book.previousAutoLogin == nil, "a vanished previous holder is dropped, not an error")
  }

  @Test func tokenStateFollowsTheClock() {
    var account = Account(id: AccountID(user: "a", backend: "b"), addedAt: now)
    #expect(account.tokenState(at: now) == .none)
    account.token = TokenRecord(expiresAt: nil)
    #expect(account.tokenState(at: now) == .valid(until: nil))
    account.token = TokenRecord(expiresAt: now.adding(seconds: 60))
    #expect(account.tokenState(at: now) == .valid(until: now.adding(seconds: 60)))
    #expect(account.tokenState(at: now.adding(seconds: 60)) == .expired(at: now.adding(seconds: 60)))
  }

  @Test func resolvesFullNamesUsersAndUniquePrefixes() throws {
    let book = try book(["alice@corp", "alice@test", "bob@corp", "bobby@test", "carol@corp"])
    #expect(try book.resolve("alice@test") == AccountID(user: "alice", backend: "test"))
    #expect(try book.resolve("carol") == AccountID(user: "carol", backend: "corp"))
    #expect(try book.resolve("car") == AccountID(user: "carol", backend: "corp"))
    #expect(try book.resolve("bob") == AccountID(user: "bob", backend: "corp"), "an exact user beats a longer prefix")
    #expect(try book.resolve("alice", backend: "test") == AccountID(user: "alice", backend: "test"))
    #expect(try book.resolve("alice@c") == AccountID(user: "alice", backend: "corp"))
  }

  @Test func explainsAmbiguousAndUnknownNames() throws {
    let book = try book(["alice@corp", "alice@test", "bob@corp"])
    #expect(throws: AccountLookupError.ambiguous("alice", [AccountID(user: "alice", backend: "corp"), AccountID(user: "alice", backend: "test")])) {
      try book.resolve("alice")
    }
    do {
      _ = try book.resolve("alcie")
      Issue.record("resolved a typo")
    } catch {
      #expect(error.status == .loginRequired)
      #expect(error.message == "no account 'alcie'")
      #expect(error.fix == "did you mean 'alice@corp' or 'alice@test'?")
    }
    #expect(throws: AccountLookupError.unknown("al", backend: nil, suggestions: ["alice@corp", "alice@test"])) {
      try book.resolve("al", allowPrefix: false)
    }
    #expect((try? book.resolve("al")) == nil, "a prefix of two accounts is ambiguous")
    #expect(throws: AccountLookupError.unknown("zed", backend: nil, suggestions: [])) {
      try book.resolve("zed")
    }
  }

  @Test func shortestNamesAreUniqueAndResolveBack() throws {
    let book = try book(["alice@corp", "alice@test", "bob@corp"])
    let names = book.accounts.map { book.shortestName(for: $0.id) }
    #expect(names == ["alice@corp", "alice@test", "bob"])
    #expect(book.shortestNames() == names)
    for account in book.accounts {
      #expect(try book.resolve(book.shortestName(for: account.id)) == account.id)
    }
  }
}

@Suite struct TimestampTests {
  /// A backend's absurd lifetime must never produce a time the index cannot read back.
  @Test func everyTimeThatIsWrittenReadsBack() throws {
    for seconds: Int64 in [.max, .min, 253_402_300_800, -62_167_219_201, 6_917_529_027_641_081_855] {
      let time = Timestamp(secondsSince1970: seconds)
      #expect(Timestamp(iso8601: time.iso8601) == time, "\(seconds) wrote \(time.iso8601)")
    }
    #expect(Timestamp(secondsSince1970: .max).iso8601 == "9999-12-31T23:59:59Z")
    #expect(Timestamp(secondsSince1970: .min).iso8601 == "0000-01-01T00:00:00Z")
    let now = Timestamp(secondsSince1970: 1_800_000_000)
    #expect(now.adding(seconds: .max) == Timestamp.latest)
    #expect(Timestamp.lifetime(6_917_529_027_641_081_855) == Timestamp.longestLifetime && Timestamp.longestLifetime == 316_224_000)
    #expect(Timestamp.lifetime(3600) == 3600)
    #expect(Timestamp.lifetime(0) == nil && Timestamp.lifetime(-5) == nil)
  }

  @Test func formatsAndParsesISO8601() throws {
    let time = Timestamp(secondsSince1970: 1_512_826_779)
    #expect(time.iso8601 == "2017-12-09T13:39:39Z")
    #expect(Timestamp(iso8601: "2017-12-09T13:39:39Z") == time)
    #expect(Timestamp(iso8601: "2017-12-09T21:39:39+08:00") == time)
    #expect(Timestamp(iso8601: "2017-12-09T13:39:39.250Z") == time)
    #expect(Timestamp(iso8601: "1970-01-01T00:00:00Z") == Timestamp(secondsSince1970: 0))
    #expect(Timestamp(iso8601: "2024-02-29T12:00:00Z") == Timestamp(secondsSince1970: 1_709_208_000))
    #expect(Timestamp(iso8601: "2000-02-29T00:00:00Z") == Timestamp(secondsSince1970: 951_782_400))
    #expect(Timestamp(iso8601: "1969-12-31T23:59:59Z") == Timestamp(secondsSince1970: -1))
    for bad in ["", "2017-12-09", "2017-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2017-04-31T00:00:00Z", "2017-12-09T13:39:39", "2017-12-09T25:00:00Z", "2017-12-09T13:39:39+0800", "x017-12-09T13:39:39Z"] {
      #expect(Timestamp(iso8601: bad) == nil, "\(bad)")
    }
  }

  @Test func roundTripsOverManyDates() {
    var seconds: Int64 = -86400 * 365
    while seconds < 4_102_444_800 {
      let time = Timestamp(secondsSince1970: seconds)
      #expect(Timestamp(iso8601: time.iso8601) == time)
      seconds += 86_399 * 17
    }
  }
}
