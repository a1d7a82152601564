import AccountsCore
import Foundation
import TestSupport
import Testing

@testable import SecretService

/// The libsecret wrapper against a real headless gnome-keyring (one per test process: GDBus
/// caches the session bus). Each test uses its own backend name so tests can run side by side.
/// Locking and hanging the daemon would disturb the other tests here, so those are tested
/// end to end, each with a keyring of its own (Tests/EndToEndTests/KeyringFailureTests.swift).
@Suite struct LibsecretStoreTests {
  let keyring = KeyringSession.shared
  let backend = "test-" + UUID().uuidString.prefix(8).lowercased()

  func store() -> LibsecretStore {
    _ = keyring
    return LibsecretStore(timeout: 10, promptTimeout: 10, mayPrompt: false)
  }

  func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

  func text(_ secret: SecretBytes?) -> String? {
    secret?.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
  }

  /// `secret-tool search --all` for this test's backend: labels and attributes as another
  /// Secret Service client sees them.
  func itemsSeenBySecretTool() throws -> String {
    var environment = ProcessInfo.processInfo.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = keyring.environment["DBUS_SESSION_BUS_ADDRESS"]
    let result = try runProcess(
      "/usr/bin/secret-tool", ["search", "--all", "backend", backend], environment: environment,
      timeout: 20)
    return result.standardOutput + result.standardError
  }

  @Test func storesLooksUpReplacesAndDeletes() throws {
    let store = store()
    let alice = SecretKey(backend: backend, account: "alice", kind: .password)
    #expect(try store.lookup(alice) == nil, "nothing stored yet")
    try store.store(secret("first pässword ✓"), for: alice)
    #expect(text(try store.lookup(alice)) == "first pässword ✓")
    try store.store(secret("second"), for: alice)
    #expect(text(try store.lookup(alice)) == "second", "a store replaces the item")
    let seen = try itemsSeenBySecretTool()
    #expect(seen.components(separatedBy: "label = accounts: alice@\(backend) password").count == 2, "one item: \(seen)")
    #expect(seen.contains("attribute.kind = password") && seen.contains("attribute.account = alice"))
    #expect(seen.contains("attribute.backend = \(backend)"))
    #expect(seen.contains("schema = io.accounts.Secret"))
    try store.delete(alice)
    #expect(try store.lookup(alice) == nil)
    try store.delete(alice)  // already gone: success
  }

  @Test func kindsAndAccountsAreSeparateItems() throws {
    let store = store()
    let password = SecretKey(backend: backend, account: "alice", kind: .password)
    let token = SecretKey(backend: backend, account: "alice", kind: .token)
    let bob = SecretKey(backend: backend, account: "bob", kind: .password)
    let privateKey = SecretKey.setting("private_key", backend: backend)
    try store.store(secret("alice-pw"), for: password)
    try store.store(secret("alice-token"), for: token)
    try store.store(secret("bob-pw"), for: bob)
    try store.store(secret("key"), for: privateKey)
    #expect(text(try store.lookup(token)) == "alice-token")
    #expect(try itemsSeenBySecretTool().contains("label = accounts: backend \(backend) private_key"))

    try store.deleteAll(backend: backend, account: "alice")
    #expect(try store.lookup(password) == nil)
    #expect(try store.lookup(token) == nil)
    #expect(text(try store.lookup(bob)) == "bob-pw", "another account's items stay")
    #expect(text(try store.lookup(privateKey)) == "key", "backend settings stay")

    try store.deleteSettings(backend: backend)
    #expect(try store.lookup(privateKey) == nil)
    #expect(text(try store.lookup(bob)) == "bob-pw", "deleting settings leaves accounts alone")
  }

  @Test func concurrentDeletesOfOneItemAllSucceed() async throws {
    // gnome-keyring answers the losers of a delete race with "Object does not exist"; each
    // deleter here has its own connection state, as separate processes would.
    let key = SecretKey(backend: backend, account: "raced", kind: .token)
    for round in 0..<20 {
      try store().store(secret("token-\(round)"), for: key)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<8 {
          group.addTask { try LibsecretStore(timeout: 10, promptTimeout: 10, mayPrompt: false).delete(key) }
        }
        try await group.waitForAll()
      }
      #expect(try store().lookup(key) == nil)
    }
  }

  @Test func reportsTheProviderAndTheCollection() throws {
    let report = try store().report()
    #expect(report.provider == "gnome-keyring-daemon")
    #expect(report.providerProcessID == keyring.daemonProcessID)
    #expect(report.collection != nil)
    #expect(report.collectionLocked == false)
  }
}

@Suite struct DeadlineTests {
  @Test func cancelsWhenTheTimeIsUp() {
    let deadline = Deadline(seconds: 0.05, failure: .timedOut(operation: "test", seconds: 0.05))
    let end = Date().addingTimeInterval(10)
    while !deadline.isCancelled, Date() < end { usleep(1000) }
    #expect(deadline.isCancelled)
    #expect(deadline.expired)
  }

  @Test func aCallThatFinishesInTimeIsNotCancelled() {
    var deadline: Deadline? = Deadline(seconds: 60, failure: .timedOut(operation: "test", seconds: 60))
    #expect(deadline?.isCancelled == false)
    let started = Date()
    deadline = nil  // the call finished: the watchdog must stop now, not after its 60 s
    #expect(Date().timeIntervalSince(started) < 30)
    let again = Deadline(seconds: 5, failure: .timedOut(operation: "test", seconds: 5))
    usleep(10_000)
    #expect(!again.isCancelled && !again.expired)
  }
}
