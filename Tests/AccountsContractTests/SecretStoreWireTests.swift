import AccountsContract
import AccountsSystem
import Glibc
import SecretMemory
import TestDoubles
import Testing

/// Errors and reports cross the C boundary of libAccountsPrivate.so as JSON text.
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

  @Test func secretRecordsRoundTrip() throws {
    let secrets: [SecretKey: SecretBytes] = [
      SecretKey(backend: "corp", account: "alice", kind: .token): secret("alice-token ✓"),
      SecretKey(backend: "corp", account: "bøb", kind: .token): secret(""),
      SecretKey(backend: "home", account: "", kind: .token): secret("with\0nul\nand newline"),
    ]
    let encoded = SecretRecords.encode(secrets)
    defer { free(encoded.bytes) }
    let sizes = secrets.map { 12 + $0.key.backend.utf8.count + $0.key.account.utf8.count + $0.value.count }
    #expect(encoded.count == sizes.reduce(0, +), "three fields of a 4-byte length and its bytes per item")
    let decoded = try SecretRecords.decode(UnsafeRawBufferPointer(start: encoded.bytes, count: encoded.count), kind: .token)
    #expect(Set(decoded.keys) == Set(secrets.keys))
    for (key, value) in secrets { #expect(decoded[key] == value, "\(key.label)") }

    let empty = SecretRecords.encode([:])
    defer { free(empty.bytes) }
    #expect(empty.count == 0)
    #expect(try SecretRecords.decode(UnsafeRawBufferPointer(start: empty.bytes, count: 0), kind: .password).isEmpty)
    #expect(try SecretRecords.decode(UnsafeRawBufferPointer(start: nil, count: 0), kind: .password).isEmpty)
  }

  @Test func malformedSecretRecordsAreFailuresNotCrashes() {
    let malformed: [[UInt8]] = [
      [1],  // a length cut short
      [4, 0, 0, 0, 99],  // a field longer than the buffer
      [1, 0, 0, 0, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0],  // a backend that is not UTF-8
      [1, 0, 0, 0, 0x61, 1, 0, 0, 0, 0x62],  // a record without its secret
      [0xFF, 0xFF, 0xFF, 0xFF],  // 4 GiB promised
    ]
    for bytes in malformed {
      #expect(throws: SecretStoreError.self, "\(bytes)") {
        _ = try bytes.withUnsafeBytes { try SecretRecords.decode($0, kind: .token) }
      }
    }
  }
}
