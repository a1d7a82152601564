@testable import AccountsContract
import AccountsSystem
import SecretMemory
import TestDoubles
import Testing

@testable import AccountsCore

/// Rule 6 (Ledger.swift) through the function that reads a claimed secret: when another
/// provider answers than the one the files record, its item of the same name is never taken
/// for the secret.
@Suite struct LedgerClaimedSecretTests {
  let alice = AccountID(user: "alice", backend: "corp")

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
