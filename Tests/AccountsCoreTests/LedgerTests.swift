@testable import AccountsContract
import Foundation
import SecretMemory
import TestDoubles
import Testing

@testable import AccountsCore
import AccountsSystem

/// The ledger's rules (see Ledger.swift) against a fake Secret Service whose faults the tests
/// choose; the end-to-end tests run the races, disks and kills against a real keyring.
@Suite struct LedgerTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)
  let alice = AccountID(user: "alice", backend: "corp")
  let bob = AccountID(user: "bob", backend: "corp")

  /// A ledger over `tree` whose config has the backend "corp".
  func ledger(_ tree: TemporaryTree, _ store: FakeSecretStore) -> Ledger {
    let config = ConfigStore(paths: tree.paths)
    if (try? config.load()["corp"]) == nil {
      try? config.update { try $0.add(BackendConfig(name: "corp", adapter: "plain")) }
    }
    return Ledger(index: IndexStore(paths: tree.paths), config: config, secrets: { store })
  }

  /// The next write of `path` fails: a directory stands where its temporary file goes.
  func breakWrites(of path: String) {
    mkdir(path + ".tmp", 0o700)
  }

  func book(_ tree: TemporaryTree) throws -> AccountBook { try IndexStore(paths: tree.paths).load() }

  /// Every store of a remembered password (add, passwd, a login with --remember) hands the
  /// keyring its backend's base_url, the item's URL.
  @Test func aPasswordIsStoredWithItsBackendsBaseURL() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.config.update { try $0.add(BackendConfig(name: "web", adapter: "plain", settings: ["base_url": "https://web.example/api"])) }
    let carol = AccountID(user: "carol", backend: "web")
    try ledger.add(Account(id: carol, addedAt: now), password: secret("pw1"))
    #expect(store.items.keys.first { $0 == SecretKey(carol, .password) }?.url == "https://web.example/api")
    #expect(ledger.passwordKey(carol).url == "https://web.example/api")
    #expect(ledger.passwordKey(alice).url == nil, "corp has no base_url")
  }

  @Test func aRememberedAddRecordsItsIntentThenStoresThenClaims() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    var seenDuringStore: AccountBook?
    store.duringStore = { seenDuringStore = try? IndexStore(paths: tree.paths).load() }
    try ledger(tree, store).add(Account(id: alice, addedAt: now), password: secret("pw1"))
    #expect(seenDuringStore?[alice] == nil, "not claimed before the keyring has it")
    #expect(seenDuringStore?.unsettled == [alice], "the intent is on disk before the keyring changes")
    #expect(try book(tree)[alice]?.remembered == true)
    #expect(try book(tree).unsettled == [])
    #expect(store.text(SecretKey(alice, .password)) == "pw1")
  }

  @Test func anAddWithoutAPasswordNeverTouchesTheKeyring() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    try ledger(tree, store).add(Account(id: alice, addedAt: now), password: nil)
    #expect(store.calls == [])
    #expect(try book(tree)[alice]?.remembered == false)
  }

  @Test func anAddWhoseClaimCannotBeWrittenTakesThePasswordBack() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    store.duringStore = { breakWrites(of: tree.paths.index) }
    #expect(throws: FileError.self) {
      try ledger(tree, store).add(Account(id: alice, addedAt: now), password: secret("pw1"))
    }
    #expect(store.items.isEmpty, "the password went with the failed claim")
    #expect(try book(tree)[alice] == nil)
  }

  @Test func aPasswdWhoseClaimCannotBeWrittenPutsTheOldPasswordBack() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.add(Account(id: alice, addedAt: now), password: secret("pw1"))
    try ledger.add(Account(id: bob, addedAt: now), password: nil)
    store.duringStore = { breakWrites(of: tree.paths.index) }
    #expect(throws: FileError.self) { try ledger.replacePassword(of: alice, with: secret("pw2")) }
    #expect(store.text(SecretKey(alice, .password)) == "pw1", "the replaced password is back")
    rmdir(tree.paths.index + ".tmp")
    #expect(throws: FileError.self) { try ledger.replacePassword(of: bob, with: secret("pw2")) }
    #expect(store.items[SecretKey(bob, .password)] == nil, "bob had none: the new one is deleted")
    #expect(try book(tree)[bob]?.remembered == false)
  }

  @Test func aStoreTheKeyringRefusesLeavesNothing() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    store.failNext["store"] = .failed(operation: "store", detail: "refused")
    #expect(throws: SecretStoreError.failed(operation: "store", detail: "refused")) {
      try ledger(tree, store).add(Account(id: alice, addedAt: now), password: secret("pw1"))
    }
    #expect(try book(tree)[alice] == nil)
    #expect(try book(tree).unsettled == [], "the keyring answered: nothing can land later")
    #expect(store.items.isEmpty)
  }

  @Test func aStoreThatTimedOutStaysUnsettledAndIsSweptByTheNextCommand() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    store.storeTimesOutButLands = true  // cancelled on our side, carried out by the provider
    #expect(throws: SecretStoreError.self) {
      try ledger.add(Account(id: alice, addedAt: now), password: secret("pw1"))
    }
    #expect(try book(tree)[alice] == nil)
    #expect(try book(tree).unsettled == [alice], "a timed-out store may still land")
    store.storeTimesOutButLands = false
    try ledger.add(Account(id: bob, addedAt: now), password: secret("pw2"))
    #expect(store.items[SecretKey(alice, .password)] == nil, "swept: alice is not saved")
    #expect(try book(tree).unsettled == [])
  }

  @Test func settlingMakesTheIndexAgreeWithTheKeyring() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let carol = AccountID(user: "carol", backend: "corp")
    let dave = AccountID(user: "dave", backend: "corp")
    let gone = AccountID(user: "gone", backend: "corp")
    try IndexStore(paths: tree.paths).update { book in
      try book.add(Account(id: alice, remembered: true, addedAt: now))  // claims a password it lacks
      try book.add(Account(id: bob, addedAt: now))  // has one it does not claim
      try book.add(Account(id: carol, token: TokenRecord(expiresAt: nil), addedAt: now, session: ["userId": "3"]))
      try book.add(Account(id: dave, addedAt: now))  // an unrecorded token
      for id in [alice, bob, carol, dave, gone] { book.markUnsettled(id) }
    }
    store.items[SecretKey(bob, .password)] = Array("b".utf8)
    store.items[SecretKey(dave, .token)] = Array("t".utf8)
    store.items[SecretKey(gone, .password)] = Array("g".utf8)
    store.items[SecretKey(gone, .token)] = Array("g".utf8)
    let result = try ledger(tree, store).settle()
    #expect(result.settled == 5 && result.left == 0)
    let book = try book(tree)
    #expect(book[alice]?.remembered == false)
    #expect(book[bob]?.remembered == false, "settling never invents a claim")
    #expect(store.items[SecretKey(bob, .password)] == nil, "an item nothing claims is deleted")
    #expect(book[carol]?.token == nil && book[carol]?.session == [:])
    #expect(store.items[SecretKey(dave, .token)] == nil)
    #expect(store.items.keys.filter { $0.account == "gone" }.isEmpty)
    #expect(book.unsettled == [])
  }

  @Test func settlingStopsAtTheFirstKeyringFailureAndKeepsTheRest() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    try IndexStore(paths: tree.paths).update { book in
      try book.add(Account(id: alice, remembered: true, addedAt: now))
      book.markUnsettled(alice)
      book.markUnsettled(bob)
    }
    store.failNext["kinds"] = .locked(collection: "Login")
    let result = try ledger(tree, store).settle()
    #expect(result.settled == 0 && result.left == 2)
    #expect(try book(tree)[alice]?.remembered == true, "unknown is not 'gone'")
  }

  @Test func removingKeepsAnAccountWhoseSecretsCannotBeDeleted() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.add(Account(id: alice, addedAt: now), password: secret("pw1"))
    store.failNext["deleteAll"] = .locked(collection: "Login")
    let forgotten = try ledger.forget([alice])
    #expect(forgotten.removed == [])
    #expect(forgotten.failure as? SecretStoreError == .locked(collection: "Login"))
    #expect(try book(tree)[alice]?.remembered == true)
    #expect(try book(tree).unsettled == [])
    #expect(store.text(SecretKey(alice, .password)) == "pw1")
  }

  @Test func removingAnAccountThatClaimsNoSecretSucceedsWithoutAKeyringAndSweepsLater() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.add(Account(id: bob, addedAt: now), password: nil)
    store.items[SecretKey(bob, .token)] = Array("left over".utf8)
    store.failNext["deleteAll"] = .noSessionBus(detail: "gone")
    #expect(try ledger.forget([bob]).removed == [bob])
    #expect(try book(tree)[bob] == nil)
    #expect(try book(tree).unsettled == [bob], "its leftovers are swept later")
    try ledger.add(Account(id: alice, addedAt: now), password: secret("pw"))
    #expect(store.items[SecretKey(bob, .token)] == nil)
    #expect(try book(tree).unsettled == [])
  }

  @Test func forgettingStopsAtTheFirstKeyringFailure() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    let carol = AccountID(user: "carol", backend: "corp")
    try ledger.add(Account(id: alice, addedAt: now), password: secret("a"))
    try ledger.add(Account(id: bob, addedAt: now), password: secret("b"))
    try ledger.add(Account(id: carol, addedAt: now), password: nil)
    store.failNext["deleteAll"] = .locked(collection: "Login")
    let forgotten = try ledger.forget([alice, bob, carol])
    #expect(forgotten.removed == [carol], "claims nothing: forgotten anyway")
    #expect(store.calls.filter { $0.hasPrefix("deleteAll") } == ["deleteAll alice@corp"], "one failure stops the sweep")
    let book = try book(tree)
    #expect(book[alice]?.remembered == true && book[bob]?.remembered == true)
    #expect(book.unsettled == [carol])
  }

  @Test func aBackendsSecretsAreTakenBackWhenTheConfigCannotRecordThem() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    store.duringStore = { breakWrites(of: tree.paths.config) }
    let ledger = ledger(tree, store)
    let corp = BackendConfig(name: "hq", adapter: "signed", secretSettings: ["private_key"])
    #expect(throws: FileError.self) {
      try ledger.addBackend(corp, secretSettings: ["private_key": secret("key")])
    }
    #expect(store.items.isEmpty)
    #expect(try ConfigStore(paths: tree.paths).load()["hq"] == nil)
  }

  @Test func aSecondBackendOfTheSameNameNeverTouchesTheFirstOnesSecrets() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    let corp = BackendConfig(name: "hq", adapter: "signed", secretSettings: ["private_key"])
    try ledger.addBackend(corp, secretSettings: ["private_key": secret("first")])
    #expect(throws: ConfigurationError.backendExists("hq")) {
      try ledger.addBackend(corp, secretSettings: ["private_key": secret("second")])
    }
    #expect(store.text(.setting("private_key", backend: "hq")) == "first")
    try ledger.removeBackend("hq", forgettingAccounts: false)
    #expect(store.items.isEmpty)
    #expect(try ConfigStore(paths: tree.paths).load()["hq"] == nil)
  }

  /// A mark an earlier, interrupted command left is not cleared by a later command that fails.
  @Test func aFailedForgetKeepsTheMarkAnInterruptedCommandLeft() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    try IndexStore(paths: tree.paths).update { book in
      try book.add(Account(id: alice, remembered: true, addedAt: now))  // its password is gone
      try book.add(Account(id: bob, remembered: true, addedAt: now))
      book.markUnsettled(alice)
    }
    store.items[SecretKey(bob, .password)] = Array("b".utf8)
    store.failNext["kinds"] = .locked(collection: "Login")  // settling alice fails first
    store.failNext["deleteAll"] = .locked(collection: "Login")
    let forgotten = try ledger(tree, store).forget([bob, alice])
    #expect(forgotten.removed == [])
    #expect(try book(tree).unsettled == [alice], "alice still needs settling")
    #expect(try ledger(tree, store).settle().left == 0)
    #expect(try book(tree)[alice]?.remembered == false)
  }

  /// An interrupted `add --remember` must not make a later plain `add` remembered.
  @Test func anInterruptedCommandsSecretNeverComesBackAsRemembered() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try IndexStore(paths: tree.paths).update { $0.markUnsettled(alice) }  // killed after its store
    store.items[SecretKey(alice, .password)] = Array("aborted".utf8)
    try ledger.add(Account(id: alice, addedAt: now), password: nil)
    try ledger.add(Account(id: bob, addedAt: now), password: secret("b"))  // settles alice
    #expect(try book(tree)[alice]?.remembered == false)
    #expect(store.items[SecretKey(alice, .password)] == nil)
    #expect(try book(tree).unsettled == [])
  }

  @Test func settlingABackendKeepsExactlyTheSettingsItLists() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ConfigStore(paths: tree.paths).update { configuration in
      try configuration.add(BackendConfig(name: "hq", adapter: "hmac", secretSettings: ["hmac_key", "private_key"]))
      configuration.markUnsettled("hq")
      configuration.markUnsettled("gone")
    }
    store.items[.setting("hmac_key", backend: "hq")] = Array("k".utf8)
    store.items[.setting("aborted_key", backend: "hq")] = Array("x".utf8)  // from a killed backend add
    store.items[.setting("private_key", backend: "gone")] = Array("g".utf8)
    try ledger.addBackend(BackendConfig(name: "other", adapter: "plain"), secretSettings: ["private_key": secret("p")])
    let configuration = try ConfigStore(paths: tree.paths).load()
    #expect(configuration["hq"]?.secretSettings == ["hmac_key"], "private_key is not in the keyring: not listed")
    #expect(store.items[.setting("aborted_key", backend: "hq")] == nil)
    #expect(store.items[.setting("private_key", backend: "gone")] == nil)
    #expect(configuration.unsettled == [])
  }

  /// A keyring that did not answer is not asked again in the same command.
  @Test func aTimedOutStoreIsNotFollowedByMoreKeyringCalls() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    store.failNext["store"] = .timedOut(operation: "store", seconds: 5)
    #expect(throws: SecretStoreError.self) {
      try ledger(tree, store).add(Account(id: alice, addedAt: now), password: secret("a"))
    }
    #expect(store.calls.filter { $0 != "providerName" } == ["store alice@corp password"])
    #expect(try book(tree).unsettled == [alice])
  }

  /// An account is never saved for a backend that is gone (removed meanwhile).
  @Test func noAccountIsSavedForABackendThatIsGone() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    let ledger = ledger(tree, store)
    try ledger.removeBackend("corp", forgettingAccounts: false)
    #expect(throws: ConfigurationError.self) { try ledger.add(Account(id: alice, addedAt: now), password: nil) }
    #expect(try book(tree)[alice] == nil)
  }

  /// Rule 6: another provider answering is never taken for one whose secrets are gone; the
  /// user may adopt it, and then every claim is settled against it.
  @Test func anotherProviderIsRefusedUnlessAdopted() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    store.provider = "keepassxc"
    try ledger(tree, store).add(Account(id: alice, addedAt: now), password: secret("a"))
    #expect(try book(tree).secretService == "keepassxc")
    let other = FakeSecretStore()  // gnome-keyring, started by D-Bus in KeePassXC's place
    other.provider = "gnome-keyring-daemon"
    #expect(throws: SecretStoreError.providerChanged(stored: "keepassxc", current: "gnome-keyring-daemon")) {
      try ledger(tree, other).add(Account(id: bob, addedAt: now), password: secret("b"))
    }
    #expect(try ledger(tree, other).forget([alice]).failure as? SecretStoreError
      == .providerChanged(stored: "keepassxc", current: "gnome-keyring-daemon"))
    #expect(try book(tree)[alice]?.remembered == true, "nothing was taken for gone")
    #expect(other.items.isEmpty && other.calls.allSatisfy { $0 == "providerName" })

    let adopting = Ledger(
      index: IndexStore(paths: tree.paths), config: ConfigStore(paths: tree.paths), adoptSecretService: true,
      secrets: { other })
    try adopting.add(Account(id: bob, addedAt: now), password: secret("b"))
    #expect(try book(tree).secretService == "gnome-keyring-daemon")
    #expect(try book(tree)[alice]?.remembered == false, "settled against the adopted provider")
    #expect(try book(tree)[bob]?.remembered == true)
  }

  func adopting(_ tree: TemporaryTree, _ store: FakeSecretStore) -> Ledger {
    Ledger(
      index: IndexStore(paths: tree.paths), config: ConfigStore(paths: tree.paths), adoptSecretService: true,
      secrets: { store })
  }

  /// A reader of a claimed secret asks rule 6 before it reads: another provider that answers,
  /// with an old item of the same name or none, is named, never read from.
  @Test func aReaderOfAClaimedSecretIsToldWhenAnotherProviderAnswers() throws {
    let tree = try TemporaryTree()
    let other = FakeSecretStore()
    other.provider = "gnome-keyring-daemon"
    let ledger = ledger(tree, other)
    #expect(throws: SecretStoreError.providerChanged(stored: "keepassxc", current: "gnome-keyring-daemon")) {
      try ledger.checkRecordedProvider(other, recorded: "keepassxc")
    }
    try ledger.checkRecordedProvider(other, recorded: "gnome-keyring-daemon")
    try ledger.checkRecordedProvider(other, recorded: nil)
    #expect(other.calls == ["providerName", "providerName"], "nothing recorded, nothing asked")
  }

  /// Rule 6: an adoption that fails on the new provider (gnome-keyring without a default
  /// collection) leaves both files as they were, the old provider recorded.
  @Test func aFailedAdoptionRecordsNothing() throws {
    let tree = try TemporaryTree()
    let keepassxc = FakeSecretStore()
    keepassxc.provider = "keepassxc"
    try ledger(tree, keepassxc).add(Account(id: alice, addedAt: now), password: secret("a"))
    let other = FakeSecretStore()
    other.provider = "gnome-keyring-daemon"
    other.failNext["kinds"] = .noCollection(provider: "gnome-keyring-daemon")
    #expect(throws: SecretStoreError.noCollection(provider: "gnome-keyring-daemon")) {
      try adopting(tree, other).add(Account(id: bob, addedAt: now), password: secret("b"))
    }
    #expect(try book(tree).secretService == "keepassxc")
    #expect(try book(tree)[alice]?.remembered == true && book(tree).unsettled == [])
    #expect(try book(tree)[bob] == nil)
  }

  /// A change that fails in a provider the index does not record yet records nothing either.
  @Test func aFailedStoreRecordsNoProvider() throws {
    let tree = try TemporaryTree()
    let store = FakeSecretStore()
    store.provider = "gnome-keyring-daemon"
    store.failNext["store"] = .noCollection(provider: "gnome-keyring-daemon")
    #expect(throws: SecretStoreError.self) {
      try ledger(tree, store).add(Account(id: alice, addedAt: now), password: secret("a"))
    }
    #expect(try book(tree).secretService == nil)
    try ledger(tree, store).add(Account(id: alice, addedAt: now), password: secret("a"))
    #expect(try book(tree).secretService == "gnome-keyring-daemon")
  }

  /// Adopting moves config.json with the index (its backends' secret settings settled against
  /// the new provider), whichever command adopts: here `remove`.
  @Test func adoptingMovesTheConfigToo() throws {
    let tree = try TemporaryTree()
    let keepassxc = FakeSecretStore()
    keepassxc.provider = "keepassxc"
    try ledger(tree, keepassxc).addBackend(
      BackendConfig(name: "sig", adapter: "signed", secretSettings: ["private_key"]),
      secretSettings: ["private_key": secret("k")])
    try ledger(tree, keepassxc).add(Account(id: alice, addedAt: now), password: secret("a"))
    #expect(try ConfigStore(paths: tree.paths).load().secretService == "keepassxc")
    let other = FakeSecretStore()
    other.provider = "gnome-keyring-daemon"
    #expect(try adopting(tree, other).forget([alice]).failure == nil)
    let configuration = try ConfigStore(paths: tree.paths).load()
    #expect(configuration.secretService == "gnome-keyring-daemon")
    #expect(configuration["sig"]?.secretSettings == [], "what the new provider does not hold is forgotten")
    #expect(try book(tree).secretService == "gnome-keyring-daemon")
    try ledger(tree, other).addBackend(
      BackendConfig(name: "sig2", adapter: "signed", secretSettings: ["private_key"]),
      secretSettings: ["private_key": secret("k2")])
  }

  /// Readers adopt too when asked: the variable works wherever the message recommends it.
  @Test func adoptingWithoutAChangeMovesBothFiles() throws {
    let tree = try TemporaryTree()
    let keepassxc = FakeSecretStore()
    keepassxc.provider = "keepassxc"
    try ledger(tree, keepassxc).add(Account(id: alice, addedAt: now), password: secret("a"))
    let other = FakeSecretStore()
    other.provider = "gnome-keyring-daemon"
    try ledger(tree, other).adoptSecretServiceIfAsked()
    #expect(try book(tree).secretService == "keepassxc", "not without the variable")
    try adopting(tree, other).adoptSecretServiceIfAsked()
    #expect(try book(tree).secretService == "gnome-keyring-daemon")
    #expect(try book(tree)[alice]?.remembered == false)
  }

  /// A book that claims nothing (after `clear`) is no reason to refuse another provider: it
  /// moves there on its own, with the first change that succeeds.
  @Test func anEmptyBookMovesToAnotherProviderOnItsOwn() throws {
    let tree = try TemporaryTree()
    let keepassxc = FakeSecretStore()
    keepassxc.provider = "keepassxc"
    try ledger(tree, keepassxc).add(Account(id: alice, addedAt: now), password: secret("a"))
    _ = try ledger(tree, keepassxc).forget([alice])
    #expect(try book(tree).secretService == "keepassxc")
    let other = FakeSecretStore()
    other.provider = "gnome-keyring-daemon"
    try ledger(tree, other).add(Account(id: bob, addedAt: now), password: secret("b"))
    #expect(try book(tree).secretService == "gnome-keyring-daemon")
    #expect(try book(tree)[bob]?.remembered == true)
  }

  /// The fixes name the program in question: KeePassXC's database for KeePassXC, gnome-keyring's
  /// own start for gnome-keyring (not "its database open").
  @Test func theFixesNameTheProvider() {
    let backToGnome = SecretStoreError.providerChanged(stored: "gnome-keyring-daemon", current: "keepassxc").fix ?? ""
    #expect(backToGnome.contains("turn off KeePassXC's Secret Service integration, then start gnome-keyring"), "\(backToGnome)")
    #expect(!backToGnome.contains("database"))
    let backToKeePassXC = SecretStoreError.providerChanged(stored: "keepassxc", current: "gnome-keyring-daemon").fix ?? ""
    #expect(backToKeePassXC.hasPrefix("start KeePassXC (its database open"))
    let locked = SecretStoreError.locked(collection: "accounts", provider: "keepassxc").fix ?? ""
    #expect(locked.hasPrefix("unlock the database in KeePassXC") && !locked.contains("Seahorse"))
    #expect(SecretStoreError.locked(collection: "Login", provider: "gnome-keyring-daemon").fix?.contains("Seahorse") == true)
  }

  /// Rule 6 through the function that reads a claimed secret: when another provider answers
  /// than the one the files record, its item of the same name is never taken for the secret.
  @Test func aClaimedSecretIsNotReadFromAnotherProvider() throws {
    let tree = try TemporaryTree()
    let other = FakeSecretStore()  // gnome-keyring, started by D-Bus in KeePassXC's place
    other.provider = "gnome-keyring-daemon"
    other.items[SecretKey(alice, .password)] = Array("old-item".utf8)
    other.items[SecretKey(alice, .token)] = Array("old-token".utf8)
    let ledger = Ledger(index: IndexStore(paths: tree.paths), config: ConfigStore(paths: tree.paths), secrets: { other })
    for kind in [SecretKind.password, .token] {
      var read: SecretBytes?
      #expect(throws: SecretStoreError.providerChanged(stored: "keepassxc", current: "gnome-keyring-daemon")) {
        read = try ledger.claimedSecret(SecretKey(alice, kind), recorded: "keepassxc")
      }
      #expect(read == nil)
    }
    #expect(other.calls == ["providerName", "providerName"], "asked who answers, never read from")

    let same = try ledger.claimedSecret(SecretKey(alice, .password), recorded: "gnome-keyring-daemon")
    #expect(same.map { $0.withUnsafeBytes { Array($0) } } == Array("old-item".utf8), "the recorded provider is read")
  }
}
