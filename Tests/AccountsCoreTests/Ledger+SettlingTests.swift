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
}
