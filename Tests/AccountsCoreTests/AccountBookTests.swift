@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

@Suite struct AccountBookTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)

  @Test func keepsAccountsSortedAndRejectsDuplicates() throws {
    var book = try AccountBook.named(["zoe@corp", "alice@test", "alice@corp", "bob@corp"])
    #expect(book.accounts.map(\.id.description) == ["alice@corp", "alice@test", "bob@corp", "zoe@corp"])
    #expect(throws: AccountBookError.alreadySaved(AccountID(user: "bob", backend: "corp"))) {
      try book.add(Account(id: AccountID(user: "bob", backend: "corp"), addedAt: now))
    }
  }

  @Test func removingTheHolderEmptiesTheSlot() throws {
    var book = try AccountBook.named(["alice@corp", "bob@corp"])
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
}
