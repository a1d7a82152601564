@testable import AccountsContract
import Foundation
import TestDoubles
import Testing

@testable import AccountsCore
import AccountsSystem

/// `Ledger.changeBackend` (`accounts backend set`) by the ledger's rules, against the fake
/// keyring: intent before effect, a secret stored before config.json claims it and forgotten
/// before it is deleted, and a failed write or keyring call taken back.
extension LedgerTests {
  /// A ledger whose config has "hq" keeping private_key "k1" and hmac_key "h1".
  func ledgerWithSecrets(_ tree: TemporaryTree, _ store: FakeSecretStore) throws -> Ledger {
    let ledger = ledger(tree, store)
    try ledger.addBackend(
      BackendConfig(name: "hq", adapter: "signed", settings: ["ver": "1.0"], secretSettings: ["hmac_key", "private_key"]),
      secretSettings: ["private_key": secret("k1"), "hmac_key": secret("h1")])
    return ledger
  }

  func configuration(_ tree: TemporaryTree) throws -> Configuration { try ConfigStore(paths: tree.paths).load() }

  @Test func aSettingsOnlyChangeNeverTouchesTheKeyring() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ConfigStore(paths: tree.paths).update { $0.update("corp") { $0.settings = ["base_url": "https://a", "check_path": "me"] } }
    let change = try ledger.changeBackend("corp", settings: ["logout_path": "out"], unset: ["check_path"])
    #expect(store.calls == [])
    #expect(change.before.settings == ["base_url": "https://a", "check_path": "me"])
    #expect(try configuration(tree)["corp"]?.settings == ["base_url": "https://a", "logout_path": "out"])
    #expect(throws: ConfigurationError.self) { try ledger.changeBackend("crop", settings: ["a": "b"]) }
  }

  @Test func aReplacedSecretIsStoredUnderTheIntentBeforeTheConfigChanges() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = try ledgerWithSecrets(tree, store)
    var seenDuringStore: Configuration?
    store.duringStore = { seenDuringStore = try? ConfigStore(paths: tree.paths).load() }
    let change = try ledger.changeBackend("hq", settings: ["ver": "2.0"], secretSettings: ["private_key": secret("k2")])
    #expect(seenDuringStore?.unsettled == ["hq"], "the intent is on disk before the keyring changes")
    #expect(seenDuringStore?["hq"]?.settings["ver"] == "1.0", "nothing changed in config.json before the keyring did")
    #expect(store.text(.setting("private_key", backend: "hq")) == "k2")
    #expect(store.text(.setting("hmac_key", backend: "hq")) == "h1")
    #expect(change.after.secretSettings == ["hmac_key", "private_key"])
    let after = try configuration(tree)
    #expect(after["hq"]?.settings["ver"] == "2.0")
    #expect(after.unsettled == [])
  }

  @Test func anUnsetSecretIsForgottenByTheConfigBeforeItsItemIsDeleted() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = try ledgerWithSecrets(tree, store)
    var seenDuringDelete: Configuration?
    store.duringDelete = { seenDuringDelete = try? ConfigStore(paths: tree.paths).load() }
    let change = try ledger.changeBackend("hq", unset: ["hmac_key"])
    #expect(seenDuringDelete?["hq"]?.secretSettings == ["private_key"], "no claim is left without its item")
    #expect(seenDuringDelete?.unsettled == ["hq"], "and the intent is on disk")
    #expect(store.items[.setting("hmac_key", backend: "hq")] == nil)
    #expect(store.text(.setting("private_key", backend: "hq")) == "k1")
    #expect(change.leftInKeyring == [])
    #expect(try configuration(tree).unsettled == [])
  }

  @Test func aChangeWhoseConfigCannotBeWrittenPutsTheKeyringBack() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = try ledgerWithSecrets(tree, store)
    store.duringStore = { breakWrites(of: tree.paths.config) }
    #expect(throws: FileError.self) {
      try ledger.changeBackend(
        "hq", settings: ["ver": "2.0"], secretSettings: ["private_key": secret("k2"), "extra_key": secret("e")])
    }
    store.duringStore = nil
    #expect(store.text(.setting("private_key", backend: "hq")) == "k1", "the replaced secret is back")
    #expect(store.items[.setting("extra_key", backend: "hq")] == nil, "the new one went with the failed claim")
    rmdir(tree.paths.config + ".tmp")
    let after = try configuration(tree)
    #expect(after["hq"]?.settings["ver"] == "1.0")
    #expect(after["hq"]?.secretSettings == ["hmac_key", "private_key"])
    try ledger.changeBackend("hq", settings: ["ver": "3.0"], secretSettings: ["hmac_key": secret("h2")])
    #expect(try configuration(tree).unsettled == [], "the next change settles what the failed one marked")
    #expect(store.text(.setting("private_key", backend: "hq")) == "k1")
  }

  @Test func aStoreTheKeyringRefusesHalfwayTakesBackTheOnesBeforeIt() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = try ledgerWithSecrets(tree, store)
    var stores = 0
    store.duringStore = {
      stores += 1
      if stores == 1 { store.failNext["store"] = .failed(operation: "store", detail: "refused") }
    }
    #expect(throws: SecretStoreError.failed(operation: "store", detail: "refused")) {
      // hmac_key is stored first, then private_key is refused.
      try ledger.changeBackend("hq", settings: ["ver": "2.0"], secretSettings: ["hmac_key": secret("h2"), "private_key": secret("k2")])
    }
    #expect(store.text(.setting("hmac_key", backend: "hq")) == "h1", "put back")
    #expect(store.text(.setting("private_key", backend: "hq")) == "k1")
    let after = try configuration(tree)
    #expect(after["hq"]?.settings["ver"] == "1.0", "no half change")
    #expect(after["hq"]?.secretSettings == ["hmac_key", "private_key"])
    #expect(after.unsettled == [], "the keyring answered: settled at once")
  }

  @Test func anUnsetSecretTheKeyringCannotDeleteIsSweptLater() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = try ledgerWithSecrets(tree, store)
    store.failNext["delete"] = .locked(collection: "Login")
    let change = try ledger.changeBackend("hq", unset: ["hmac_key"])
    #expect(change.leftInKeyring == ["hmac_key"])
    var after = try configuration(tree)
    #expect(after["hq"]?.secretSettings == ["private_key"], "config.json no longer claims it")
    #expect(after.unsettled == ["hq"])
    try ledger.changeBackend("hq", secretSettings: ["private_key": secret("k2")])
    #expect(store.items[.setting("hmac_key", backend: "hq")] == nil, "swept by the next change")
    after = try configuration(tree)
    #expect(after.unsettled == [])
    #expect(after["hq"]?.secretSettings == ["private_key"])
  }
}
