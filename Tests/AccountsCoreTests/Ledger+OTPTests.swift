@testable import AccountsContract
import Foundation
import TestDoubles
import Testing

@testable import AccountsCore
import AccountsSystem

/// TOTP seeds (kind `otp`) under the ledger's rules, as remembered passwords are: stored before
/// the index claims them, undone when the index cannot record it, settled after a kill.
@Suite struct LedgerOTPTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)
  let alice = AccountID(user: "alice", backend: "corp")
  let bob = AccountID(user: "bob", backend: "corp")

  func ledger(_ tree: TemporaryTree, _ store: FakeSecretStore) -> Ledger {
    let config = ConfigStore(paths: tree.paths)
    if (try? config.load()["corp"]) == nil {
      try? config.update { try $0.add(BackendConfig(name: "corp", adapter: "plain")) }
    }
    return Ledger(index: IndexStore(paths: tree.paths), config: config, secrets: { store })
  }

  func book(_ tree: TemporaryTree) throws -> AccountBook { try IndexStore(paths: tree.paths).load() }

  func seed(_ text: String) throws -> OTPSeed { try OTPSeed(parsing: secret(text)) }

  @Test func settlingDropsAClaimWhoseSeedIsGoneAndDeletesAnUnclaimedOne() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    try IndexStore(paths: tree.paths).update { book in
      try book.add(Account(id: alice, addedAt: now, otp: true))  // claims a seed it lacks
      try book.add(Account(id: bob, addedAt: now))  // has one it does not claim
      book.markUnsettled(alice)
      book.markUnsettled(bob)
    }
    store.items[SecretKey(bob, .otp)] = Array("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP".utf8)
    let result = try ledger(tree, store).settle()
    #expect(result.settled == 2 && result.left == 0)
    #expect(try book(tree)[alice]?.otp == false)
    #expect(try book(tree)[bob]?.otp == false, "settling never invents a claim")
    #expect(store.items.isEmpty)
  }

  @Test func aSetRecordsItsIntentThenStoresThenClaims() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.add(Account(id: alice, addedAt: now), password: nil)
    var seenDuringStore: AccountBook?
    store.duringStore = { seenDuringStore = try? IndexStore(paths: tree.paths).load() }
    try ledger.setOTPSeed(of: alice, to: seed("JBSWY3DPEHPK3PXP"))
    #expect(seenDuringStore?[alice]?.otp == false, "not claimed before the keyring has it")
    #expect(seenDuringStore?.unsettled == [alice], "the intent is on disk first")
    #expect(try book(tree)[alice]?.otp == true)
    #expect(try book(tree).unsettled == [])
    #expect(
      store.text(SecretKey(alice, .otp)) == "otpauth://totp/?secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30")
    #expect(try ledger.claimedOTPSeed(of: alice, in: book(tree))?.key == seed("JBSWY3DPEHPK3PXP").key)
  }

  @Test func aReplacementTheIndexCannotRecordPutsTheOldSeedBack() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.add(Account(id: alice, addedAt: now), password: nil, otp: seed("JBSWY3DPEHPK3PXP"))
    let before = store.text(SecretKey(alice, .otp))
    store.duringStore = { mkdir(tree.paths.index + ".tmp", 0o700) }
    #expect(throws: FileError.self) { try ledger.setOTPSeed(of: alice, to: seed("GEZDGNBVGY3TQOJQ")) }
    #expect(store.text(SecretKey(alice, .otp)) == before)
  }

  @Test func anAddStoresPasswordAndSeedBeforeClaimingBothOrNeither() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.add(Account(id: alice, addedAt: now), password: secret("pw"), otp: seed("JBSWY3DPEHPK3PXP"))
    #expect(try book(tree)[alice]?.remembered == true && book(tree)[alice]?.otp == true)
    #expect(store.items.count == 2)

    var stores = 0
    store.duringStore = {
      stores += 1
      if stores == 1 { store.failNext["store"] = .failed(operation: "store", detail: "full") }
    }
    #expect(throws: SecretStoreError.self) {
      try ledger.add(Account(id: bob, addedAt: now), password: secret("pw"), otp: seed("JBSWY3DPEHPK3PXP"))
    }
    #expect(try book(tree)[bob] == nil)
    #expect(store.items.keys.filter { $0.account == "bob" }.isEmpty, "the password stored first went too")
    #expect(try book(tree).unsettled == [])
  }

  @Test func removingDeletesTheSeedAndSaysWhenThereWasNone() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.add(Account(id: alice, addedAt: now), password: secret("pw"), otp: seed("JBSWY3DPEHPK3PXP"))
    #expect(try ledger.removeOTPSeed(of: alice))
    #expect(store.items.keys.map(\.kind) == [.password])
    #expect(try book(tree)[alice]?.remembered == true && book(tree)[alice]?.otp == false)
    #expect(try !ledger.removeOTPSeed(of: alice))
    #expect(try ledger.claimedOTPSeed(of: alice, in: book(tree)) == nil)

    try ledger.setOTPSeed(of: alice, to: seed("JBSWY3DPEHPK3PXP"))
    _ = try ledger.forget([alice])
    #expect(store.items.isEmpty, "the account goes with every secret of it")
  }

  /// An `otp set` killed before its claim leaves the account unsettled with a seed nothing
  /// claims: `--remove` settles it first, so the seed is gone afterwards, not left behind.
  @Test func removingAfterAKilledSetDeletesTheUnclaimedSeed() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.add(Account(id: alice, addedAt: now), password: secret("pw"))
    try IndexStore(paths: tree.paths).update { $0.markUnsettled(alice) }
    store.items[SecretKey(alice, .otp)] = Array("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP".utf8)
    #expect(try !ledger.removeOTPSeed(of: alice), "the index claimed none")
    #expect(store.items.keys.map(\.kind) == [.password], "the unclaimed seed is gone, the password stays")
    #expect(try book(tree).unsettled == [])
    #expect(try book(tree)[alice]?.remembered == true && book(tree)[alice]?.otp == false)
  }

  @Test func theIndexWritesOTPOnlyWhenTrueAndOlderIndexesReadFine() throws {
    var book = AccountBook()
    try book.add(Account(id: alice, addedAt: now, otp: true))
    try book.add(Account(id: bob, addedAt: now))
    let text = IndexFormat.encode(book)
    #expect(text.components(separatedBy: "\"otp\"").count == 2, "one member, alice's")
    let bytes = Array(text.utf8)
    #expect(IndexFastReader.read(bytes) == book)
    let file = DocumentFile(path: "/nonexistent/accounts.json")
    #expect(try IndexFormat.decodeGenerally(bytes, file: file) == book)
    let older = Array(text.replacingOccurrences(of: ",\n      \"otp\": true", with: "").utf8)
    #expect(try IndexFormat.decodeGenerally(older, file: file)[alice]?.otp == false)
    #expect(IndexFastReader.read(older)?[alice]?.otp == false)
  }
}
