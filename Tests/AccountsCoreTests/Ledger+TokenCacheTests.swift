@testable import AccountsContract
import AccountsSystem
import Foundation
import SecretMemory
import TestDoubles
import Testing

@testable import AccountsCore

/// Which token the cache may serve, and when the ledger drops it (the kernel keyring and the
/// lock check are run end to end).
@Suite struct LedgerTokenCacheTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)
  let alice = AccountID(user: "alice", backend: "corp")

  func ledger(_ tree: TemporaryTree, _ store: FakeSecretStore, _ cache: InMemoryTokenCache) -> Ledger {
    let config = ConfigStore(paths: tree.paths)
    if (try? config.load()["corp"]) == nil {
      try? config.update { try $0.add(BackendConfig(name: "corp", adapter: "plain")) }
    }
    return Ledger(index: IndexStore(paths: tree.paths), config: config, tokenCache: cache, secrets: { store })
  }

  func logIn(_ ledger: Ledger, token: String, generation: String, expiresIn seconds: Int64 = 3600) throws {
    try ledger.record(
      .loggedIn(remember: false, takeSlot: false), for: alice, token: secret(token),
      login: LoginRecord(expiresAt: Timestamp(secondsSince1970: now.secondsSince1970 + seconds), generation: generation),
      at: now)
  }

  func account(_ ledger: Ledger) throws -> (Account, AccountBook) {
    let book = try ledger.index.load()
    return (try #require(book[alice]), book)
  }

  @Test func onlyAClaimedValidSettledSessionOfAKnownGenerationHasAnIdentity() throws {
    var account = Account(id: alice, addedAt: now)
    let book = AccountBook()
    #expect(TokenCacheRule.identity(of: account, in: book, at: now) == nil, "no token claimed")
    account.token = TokenRecord(expiresAt: Timestamp(secondsSince1970: now.secondsSince1970 + 60), generation: nil)
    #expect(TokenCacheRule.identity(of: account, in: book, at: now) == nil, "a session from before generations")
    account.token?.generation = "g1"
    let first = TokenCacheRule.identity(of: account, in: book, at: now)
    #expect(first != nil)
    account.token?.generation = "g2"
    #expect(TokenCacheRule.identity(of: account, in: book, at: now) != first, "another session, another identity")
    #expect(
      TokenCacheRule.identity(of: account, in: book, at: Timestamp(secondsSince1970: now.secondsSince1970 + 60)) == nil,
      "expired")
    var unsettled = book
    unsettled.markUnsettled(alice)
    #expect(TokenCacheRule.identity(of: account, in: unsettled, at: now) == nil, "left half done by a command")
  }

  @Test func anEntryLastsUntilTheExpiryAndFifteenMinutesAtMost() {
    #expect(TokenCacheRule.seconds(until: nil, from: now) == 900)
    #expect(TokenCacheRule.seconds(until: Timestamp(secondsSince1970: now.secondsSince1970 + 100), from: now) == 100)
    #expect(TokenCacheRule.seconds(until: Timestamp(secondsSince1970: now.secondsSince1970 + 901), from: now) == 900)
    #expect(TokenCacheRule.seconds(until: Timestamp(secondsSince1970: now.secondsSince1970 - 1), from: now) == 0)
  }

  @Test func aReadKeepsTheTokenAndTheNextIsServedWithoutTheKeyring() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let cache = InMemoryTokenCache()
    let ledger = ledger(tree, store, cache)
    try logIn(ledger, token: "t1", generation: "g1", expiresIn: 600)
    let (account, book) = try account(ledger)
    #expect(try ledger.claimedToken(of: account, in: book, at: now).map { String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self) } == "t1")
    #expect(cache.entries[alice]?.seconds == 600, "no longer than the token")
    let lookups = store.calls.filter { $0.hasPrefix("lookup") }.count
    #expect(try ledger.claimedToken(of: account, in: book, at: now) != nil)
    #expect(store.calls.filter { $0.hasPrefix("lookup") }.count == lookups, "the second read is the cache's")
  }

  @Test func everyChangeOfTheAccountsSecretsDropsTheEntryFirst() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let cache = InMemoryTokenCache()
    let ledger = ledger(tree, store, cache)
    try logIn(ledger, token: "t1", generation: "g1")
    #expect(cache.forgotten == [alice], "a login (and a re-login) drops the old entry")
    try ledger.replacePassword(of: alice, with: secret("pw"))
    #expect(cache.forgotten == [alice, alice], "passwd")
    try ledger.record(.loggedOut, for: alice, at: now)
    #expect(cache.forgotten == [alice, alice, alice], "logout")
    try logIn(ledger, token: "t2", generation: "g2")
    try ledger.record(.takenOver, for: alice, at: now)
    #expect(cache.forgotten.count == 5, "a take-over")
    try logIn(ledger, token: "t3", generation: "g3")
    cache.forgotten = []
    _ = try ledger.lockCollection()
    #expect(cache.forgotten == [alice, alice], "lock: before, and after for an entry kept meanwhile")
    _ = try ledger.forget([alice])
    #expect(cache.forgotten == [alice, alice, alice], "remove and clear")
  }
}
