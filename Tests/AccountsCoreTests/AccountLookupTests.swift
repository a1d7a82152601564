@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

/// How a name typed by a user finds a saved account: the full name, the user alone, a unique
/// prefix; and the shortest name that finds each account again.
@Suite struct AccountLookupTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)

  @Test func resolvesFullNamesUsersAndUniquePrefixes() throws {
    let book = try AccountBook.named(["alice@corp", "alice@test", "bob@corp", "bobby@test", "carol@corp"])
    #expect(try book.resolve("alice@test") == AccountID(user: "alice", backend: "test"))
    #expect(try book.resolve("carol") == AccountID(user: "carol", backend: "corp"))
    #expect(try book.resolve("car") == AccountID(user: "carol", backend: "corp"))
    #expect(try book.resolve("bob") == AccountID(user: "bob", backend: "corp"), "an exact user beats a longer prefix")
    #expect(try book.resolve("alice", backend: "test") == AccountID(user: "alice", backend: "test"))
    #expect(try book.resolve("alice@c") == AccountID(user: "alice", backend: "corp"))
  }

  @Test func explainsAmbiguousAndUnknownNames() throws {
    let book = try AccountBook.named(["alice@corp", "alice@test", "bob@corp"])
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
    let book = try AccountBook.named(["alice@corp", "alice@test", "bob@corp"])
    let names = book.accounts.map { book.shortestName(for: $0.id) }
    #expect(names == ["alice@corp", "alice@test", "bob"])
    #expect(book.shortestNames() == names)
    for account in book.accounts {
      #expect(try book.resolve(book.shortestName(for: account.id)) == account.id)
    }
  }
}
