import AccountsCore
import Testing

/// Errors and reports cross the C boundary of libAccountsSecretService.so as JSON text.
@Suite struct SecretStoreWireTests {
  @Test(arguments: [
    SecretStoreError.noSessionBus(detail: "Could not connect: No such file or directory"),
    .noProvider(detail: "nothing owns org.freedesktop.secrets"),
    .locked(collection: "Login \"work\" ✓"),
    .locked(collection: "accounts", provider: "keepassxc"),
    .timedOut(operation: "read accounts: alice@corp password", seconds: 1.5),
    .promptDismissed(operation: "unlock 'Login'"),
    .failed(operation: "store", detail: "line one\nline two"),
    .supportMissing(detail: "libsecret-1.so.0: cannot open shared object file"),
  ])
  func errorsRoundTrip(_ error: SecretStoreError) {
    #expect(SecretStoreError(wireText: error.wireText) == error)
    #expect(!error.wireText.contains("\n"), "one line")
  }

  @Test func unreadableErrorsBecomeFailuresNotCrashes() {
    for text in ["", "{", "[]", #"{"case": "locked"}"#, #"{"case": "exploded"}"#] {
      guard case .failed = SecretStoreError(wireText: text) else {
        Issue.record("\(text) was not reported as a failure")
        continue
      }
    }
  }

  @Test func reportsRoundTrip() {
    let full = SecretServiceReport(provider: "gnome-keyring-daemon", providerProcessID: 4242, collection: "Login", collectionLocked: true)
    #expect(SecretServiceReport(wireText: full.wireText) == full)
    let empty = SecretServiceReport(provider: nil, providerProcessID: nil, collection: nil, collectionLocked: nil)
    #expect(SecretServiceReport(wireText: empty.wireText) == empty)
  }

  @Test func kindsRoundTripThroughTheirAttribute() {
    for kind in [SecretKind.password, .token, .setting("private_key")] {
      #expect(SecretKind(attributeValue: kind.attributeValue) == kind)
    }
    #expect(SecretKind(attributeValue: "setting:") == nil)
    #expect(SecretKind(attributeValue: "cookie") == nil)
  }
}
