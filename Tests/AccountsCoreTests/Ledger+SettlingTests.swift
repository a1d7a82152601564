import AccountsContract
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCore

/// `accounts password`'s rule: the remembered password, or exit 3 saying why there is none and
/// how to store one: never remembered, lost by a change that was interrupted, or deleted outside
/// accounts.
@Suite struct LedgerSettlingTests {
  let alice = AccountID(user: "alice", backend: "corp")
  let bob = AccountID(user: "bob", backend: "corp")
  let at = Timestamp(secondsSince1970: 1_800_000_000)

  func world() throws -> (TemporaryTree, FakeSecretStore, Ledger) {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let config = ConfigStore(paths: tree.paths)
    try config.update { try $0.add(BackendConfig(name: "corp", adapter: "plain")) }
    let ledger = Ledger(index: IndexStore(paths: tree.paths), config: config, secrets: { store })
    try ledger.add(Account(id: alice, addedAt: at), password: secret("pw"))
    try ledger.add(Account(id: bob, addedAt: at), password: nil)
    return (tree, store, ledger)
  }

  @Test func theRememberedPasswordIsRead() throws {
    let (tree, _, ledger) = try world()
    defer { withExtendedLifetime(tree) {} }
    #expect(text(try ledger.rememberedPassword(of: alice, in: try ledger.index.load())) == "pw")
  }

  @Test func aPasswordNeverRememberedSaysHowToRememberOne() throws {
    let (tree, _, ledger) = try world()
    defer { withExtendedLifetime(tree) {} }
    #expect(throws: CommandError(.loginRequired, "bob@corp has no remembered password", fix: "remember one with `accounts passwd bob`")) {
      try ledger.rememberedPassword(of: bob, in: try ledger.index.load())
    }
  }

  @Test func aPasswordTheKeyringLostSaysWhyAndHowToStoreItAgain() throws {
    let (tree, store, ledger) = try world()
    defer { withExtendedLifetime(tree) {} }
    store.items[SecretKey(alice, .password)] = nil  // deleted outside accounts
    let book = try ledger.index.load()
    #expect(
      throws: CommandError(
        .loginRequired, "the keyring has no password for alice@corp (deleted outside accounts?)",
        fix: "store it again with `accounts passwd alice`")
    ) { try ledger.rememberedPassword(of: alice, in: book) }
    var unsettled = book
    unsettled.markUnsettled(alice)
    let error = #expect(throws: CommandError.self) { try ledger.rememberedPassword(of: alice, in: unsettled) }
    #expect(error?.message == "the keyring has no password for alice@corp: a command that changed it was interrupted or failed")
  }

  /// doctor's other direction: what the files claim and the keyring lacks, in the files' order,
  /// leaving out holders a command left unsettled.
  @Test func missingNamesEveryClaimTheKeyringDoesNotHold() throws {
    let (tree, store, ledger) = try world()
    defer { withExtendedLifetime(tree) {} }
    try ledger.addBackend(BackendConfig(name: "sig", adapter: "signed", secretSettings: ["private_key"]), secretSettings: ["private_key": secret("k")])
    #expect(try ledger.missing(from: Array(store.items.keys)) == [], "every claim held")
    try ledger.index.update { book in _ = book.update(bob) { $0.remembered = true } }
    let gone = try ledger.missing(from: [SecretKey(alice, .password)])
    #expect(gone == [SecretKey(bob, .password), .setting("private_key", backend: "sig")], "\(gone)")
    #expect(gone.map(Ledger.restoringCommand) == ["accounts passwd bob@corp", "accounts backend set sig --secret private_key"])
    try ledger.index.update { book in book.markUnsettled(bob) }
    #expect(try ledger.missing(from: [SecretKey(alice, .password), .setting("private_key", backend: "sig")]) == [], "settling decides about bob")
    #expect(Ledger.restoringCommand(SecretKey(alice, .token)) == "accounts login alice@corp")
    #expect(Ledger.restoringCommand(SecretKey(alice, .otp)) == "accounts otp set alice@corp")
  }
}
