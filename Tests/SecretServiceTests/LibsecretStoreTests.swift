import AccountsContract
import AccountsSystem
import CLibSecret
import Foundation
import SecretMemory
import TestSupport
import Testing

@testable import SecretService

/// The libsecret wrapper against a real headless gnome-keyring (one per test process: GDBus
/// caches the session bus). Each test uses its own backend name so tests can run side by side.
/// Hanging the daemon would disturb the other tests here, so that is tested end to end, each with
/// a keyring of its own. The one test that locks the collection unlocks it again before it ends
/// (`unlockSharedKeyring`), and the suite runs its tests one at a time so that no other test sees
/// it locked.
@Suite(.serialized, .blocking) struct LibsecretStoreTests {
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

  /// An item stored before password items carried `service` and `username` (only the schema's
  /// own attributes) gets them at its next store, which replaces it in place: still one item.
  /// Tokens get none: they are not passwords another tool should offer.
  @Test func aStoreGivesAnOlderPasswordItemServiceAndUsername() throws {
    let store = store()
    let alice = SecretKey(backend: backend, account: "alice", kind: .password)
    try store.store(secret("token"), for: SecretKey(backend: backend, account: "alice", kind: .token))
    let table = accounts_attributes_new()!
    defer { g_hash_table_unref(table) }
    for (name, value) in [("backend", backend), ("account", "alice"), ("kind", "password")] {
      g_hash_table_insert(table, g_strdup(name), g_strdup(value))
    }
    var error: UnsafeMutablePointer<GError>?
    let stored = secret_password_storev_sync(
      accountsSchema, table, nil, "accounts: alice@\(backend) password", "old", nil, &error)
    #expect(stored != 0 && error == nil)
    #expect(!(try itemsSeenBySecretTool()).contains("attribute.username"))

    try store.store(secret("new"), for: alice)
    let seen = try itemsSeenBySecretTool()
    #expect(seen.components(separatedBy: "attribute.username = alice").count == 2, "one password item: \(seen)")
    #expect(seen.components(separatedBy: "attribute.service = accounts:\(backend)").count == 2, "\(seen)")
    #expect(text(try store.lookup(alice)) == "new")
    try store.deleteAll(backend: backend, account: "alice")
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

  @Test func lookupAllReadsEveryItemOfAKindAtOnce() throws {
    let store = store()
    let other = backend + "-b"
    let tokens: [SecretKey: String] = [
      SecretKey(backend: backend, account: "alice", kind: .token): "alice-token ✓",
      SecretKey(backend: backend, account: "bob", kind: .token): "bob-token",
      SecretKey(backend: other, account: "alice", kind: .token): "",
    ]
    for (key, value) in tokens { try store.store(secret(value), for: key) }
    try store.store(secret("alice-pw"), for: SecretKey(backend: backend, account: "alice", kind: .password))
    try store.store(secret("key"), for: .setting("private_key", backend: backend))
    defer {
      try? store.deleteAll(backend: backend, account: "alice")
      try? store.deleteAll(backend: backend, account: "bob")
      try? store.deleteAll(backend: other, account: "alice")
      try? store.deleteSettings(backend: backend)
    }

    // Other tests' items may be there too: only this test's backends count.
    let found = try LibsecretStore(timeout: 10, promptTimeout: 10, mayPrompt: false).lookupAll(kind: .token)
      .filter { $0.key.backend == backend || $0.key.backend == other }
    #expect(Set(found.keys) == Set(tokens.keys))
    for (key, value) in tokens { #expect(text(found[key]) == value, "\(key.label)") }

    let passwords = try store.lookupAll(kind: .password).filter { $0.key.backend == backend }
    #expect(passwords.count == 1)
    #expect(text(passwords[SecretKey(backend: backend, account: "alice", kind: .password)]) == "alice-pw")
    let settings = try store.lookupAll(kind: .setting("private_key")).filter { $0.key.backend == backend }
    #expect(text(settings[.setting("private_key", backend: backend)]) == "key")

    #expect(try store.lookupAll(kind: .setting("unused-" + backend)).isEmpty, "no item of a kind: [:]")
  }

  @Test func lookupAllCrossesTheCBoundaryAsRecords() throws {
    let store = store()
    let alice = SecretKey(backend: backend, account: "alice", kind: .token)
    try store.store(secret("alice-token ✓"), for: alice)
    defer { try? store.delete(alice) }
    let handle = openSecretStore(timeout: 10, promptTimeout: 10, mayPrompt: 0, quiet: 0)
    var records: UnsafeMutableRawPointer?
    var length = -1
    var error: UnsafeMutablePointer<CChar>?
    #expect(lookUpAllSecrets(handle, "token", &records, &length, &error) == 0)
    #expect(error == nil)
    defer { releaseSecretMemory(records, length) }
    let found = try SecretRecords.decode(UnsafeRawBufferPointer(start: records, count: length), kind: .token)
    #expect(text(found[alice]) == "alice-token ✓")

    #expect(lookUpAllSecrets(handle, "cookie", &records, &length, &error) == -1, "an unknown kind")
    #expect(error.map { String(cString: $0) }?.contains("unknown item kind 'cookie'") == true)
    releaseSecretMemory(error, -1)
  }

  @Test func lookupAllOfALockedCollectionThrowsLockedNeverAnEmptyAnswer() throws {
    let store = store()
    let alice = SecretKey(backend: backend, account: "alice", kind: .token)
    try store.store(secret("alice-token"), for: alice)
    defer { try? store.delete(alice) }
    _ = try store.lock()
    var unlocked = false
    defer { if !unlocked { try? unlockSharedKeyring() } }
    do {
      let found = try LibsecretStore(timeout: 10, promptTimeout: 10, mayPrompt: false).lookupAll(kind: .token)
      Issue.record("a locked collection answered \(found.count) items")
    } catch let error as SecretStoreError {
      guard case .locked = error else {
        Issue.record("\(error)")
        return
      }
    }
    try unlockSharedKeyring()
    unlocked = true
    let found = try LibsecretStore(timeout: 10, promptTimeout: 10, mayPrompt: false).lookupAll(kind: .token)
    #expect(text(found[alice]) == "alice-token", "unlocked again")
  }

  /// Unlocks the shared keyring's default collection without a prompt, with the password
  /// scripts/with-keyring gave it, through gnome-keyring's own interface for that
  /// (UnlockWithMasterPassword, with a "plain" session of this connection).
  func unlockSharedKeyring() throws {
    struct Failure: Error, CustomStringConvertible { let description: String }
    var error: UnsafeMutablePointer<GError>?
    func check() throws {
      if let failure = error {
        defer { g_error_free(failure); error = nil }
        throw Failure(description: failure.pointee.message.map { String(cString: $0) } ?? "unknown error")
      }
    }
    let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error)
    try check()
    defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
    func call(_ interface: String, _ method: String, _ path: String, _ parameters: String) throws -> OpaquePointer? {
      let arguments = g_variant_parse(nil, parameters, nil, nil, &error)
      try check()
      let reply = g_dbus_connection_call_sync(
        connection, "org.freedesktop.secrets", path, interface, method, arguments, nil,
        G_DBUS_CALL_FLAGS_NONE, 10_000, nil, &error)
      try check()
      return reply
    }
    func objectPath(_ reply: OpaquePointer?, _ index: Int) -> String {
      let child = g_variant_get_child_value(reply, gsize(index))
      defer { g_variant_unref(child) }
      return String(cString: g_variant_get_string(child, nil))
    }
    let service = "org.freedesktop.Secret.Service"
    let opened = try call(service, "OpenSession", "/org/freedesktop/secrets", "('plain', <''>)")
    defer { g_variant_unref(opened) }
    let session = objectPath(opened, 1)
    let alias = try call(service, "ReadAlias", "/org/freedesktop/secrets", "('default',)")
    defer { g_variant_unref(alias) }
    let collection = objectPath(alias, 0)
    let password = "throwaway-keyring".utf8.map(String.init).joined(separator: ", ")
    let unlocked = try call(
      "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", "UnlockWithMasterPassword", "/org/freedesktop/secrets",
      "(@o '\(collection)', (@o '\(session)', @ay [], @ay [\(password)], 'text/plain'))")
    g_variant_unref(unlocked)
    g_variant_unref(try call("org.freedesktop.Secret.Session", "Close", session, "()"))
  }

  @Test func concurrentDeletesOfOneItemAllSucceed() throws {
    // gnome-keyring answers the losers of a delete race with "Object does not exist"; each
    // deleter here has its own connection state, as separate processes would.
    let key = SecretKey(backend: backend, account: "raced", kind: .token)
    for round in 0..<20 {
      try store().store(secret("token-\(round)"), for: key)
      // Eight threads of their own, as eight processes would be: not tasks, which would wait
      // for threads the other tests of the run hold. The bound is generous: the keyring
      // answers one client at a time, beside the whole run.
      let failures = ThreadSafeList<String>()
      let done = DispatchGroup()
      for _ in 0..<8 {
        done.enter()
        Thread {
          defer { done.leave() }
          do { try LibsecretStore(timeout: 30, promptTimeout: 30, mayPrompt: false).delete(key) } catch {
            failures.append("\(error)")
          }
        }.start()
      }
      done.wait()
      #expect(failures.all == [], "round \(round)")
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
