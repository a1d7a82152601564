import AccountsSystem
import Foundation
import TestSupport
import Testing

/// The bare, encrypted read (`SecretServiceSession`) against the real providers, each in a
/// keyring of its own (started by the project's scripts): what another client (secret-tool,
/// through libsecret) stored is read back byte for byte, lengths around the cipher's 16-byte
/// blocks and a large one included; what is locked is found as locked and never read.
@Suite(.blocking) struct SecretServiceSessionTests {
  static let secrets: [String] = [
    "", "p", "123456789012345", "1234567890123456", "12345678901234567", "pässwörd ✓ with spaces and \"quotes\"",
    String(repeating: "0123456789abcdef", count: 500) + "tail",  // secret-tool stores at most 8 KiB
  ]

  func environment(_ keyring: KeyringSession) -> [String: String] {
    ProcessInfo.processInfo.environment.merging(keyring.environment) { $1 }
  }

  func store(_ secret: String, account: String, in keyring: KeyringSession) throws {
    let result = try runProcess(
      "/usr/bin/secret-tool",
      ["store", "--label=accounts: \(account)@corp password", "xdg:schema", "io.accounts.Secret", "backend", "corp",
       "account", account, "kind", "password"],
      environment: environment(keyring), standardInput: secret, timeout: 30)
    #expect(result.status == 0, "secret-tool store: \(result.standardError)")
  }

  @Test(arguments: SecretServiceProvider.allCases)
  func readsWhatAnotherClientStoredByteForByte(provider: SecretServiceProvider) throws {
    let keyring = try KeyringSession(provider: provider)
    defer { keyring.close() }
    for (number, secret) in Self.secrets.enumerated() {
      try store(secret, account: "user\(number)", in: keyring)
    }
    let bus = try #require(keyring.environment["DBUS_SESSION_BUS_ADDRESS"])
    // KeePassXC, a desktop program, can be slow to answer on a machine busy with the whole test
    // run (the end-to-end Sandbox gives it 20 s too).
    let session = try #require(try SecretServiceSession(busAddress: bus, timeout: 20), "the session opens")
    #expect(session.providerName == provider.processName)
    for (number, secret) in Self.secrets.enumerated() {
      let found = try #require(try session.search([("backend", "corp"), ("account", "user\(number)"), ("kind", "password")]))
      #expect(found.unlocked.count == 1 && found.locked.isEmpty, "\(found)")
      let item = try #require(found.unlocked.first)
      let read = try #require(try session.secret(at: item), "secret \(number) is read")
      let same = read.withUnsafeBytes { Array($0) == Array(secret.utf8) }
      let firstDifference = read.withUnsafeBytes { bytes in
        zip(bytes, secret.utf8).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      }
      #expect(same, "secret \(number): \(read.count) bytes read, \(secret.utf8.count) stored, first difference at \(firstDifference.map(String.init) ?? "none")")
    }
    let none = try #require(try session.search([("backend", "corp"), ("account", "nobody"), ("kind", "password")]))
    #expect(none.unlocked.isEmpty && none.locked.isEmpty)
    #expect(try session.secret(at: "/org/freedesktop/secrets/collection/nothing/1") == nil, "an error reply is nil")
  }

  @Test func aLockedCollectionIsFoundLockedAndNotRead() throws {
    let keyring = try KeyringSession()
    defer { keyring.close() }
    try store("hunter2", account: "alice", in: keyring)
    let bus = try #require(keyring.environment["DBUS_SESSION_BUS_ADDRESS"])
    let before = try #require(try SecretServiceSession(busAddress: bus, timeout: 10)?.search([("account", "alice")]))
    let item = try #require(before.unlocked.first)

    // Service.Lock of the item's collection, as `accounts lock` or Seahorse would (gnome-keyring
    // locks without a prompt).
    let collection = try #require(SecretServiceLockProbe.collection(holding: item))
    let client = try #require(SessionBusConnection(address: bus, timeout: 10))
    let hello = DBusMessage.call(
      serial: 1, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      member: "Hello")
    let lock = DBusMessage.call(
      serial: 2, destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
      interface: "org.freedesktop.Secret.Service", member: "Lock",
      values: [.array(element: "o", [.objectPath(collection)])])
    #expect(client.begin(sending: [hello, lock]))
    let locked = try #require(client.replies(to: [1, 2])?[2])
    #expect(locked.kind == .methodReturn, "Lock: \(locked)")
    let session = try #require(try SecretServiceSession(busAddress: bus, timeout: 10))
    let found = try #require(try session.search([("account", "alice")]))
    #expect(found.unlocked.isEmpty && found.locked == [item], "\(found)")
    #expect(try session.secret(at: item) == nil, "a locked item's secret is not handed out")
  }

  @Test func noProviderOnTheBusIsNoSession() throws {
    let keyring = try KeyringSession()
    let bus = try #require(keyring.environment["DBUS_SESSION_BUS_ADDRESS"])
    kill(keyring.daemonProcessID, SIGTERM)
    defer { keyring.close() }
    // The daemon's name goes with it; a session is then nil (the caller takes libsecret's path),
    // never one that answers for a provider that is not there. (One that reached the daemon
    // as it left is `providerLeft`; the next try comes after.)
    var gone = false
    for _ in 0..<100 {
      do {
        gone = try SecretServiceSession(busAddress: bus, timeout: 10) == nil
        if gone { break }
      } catch .providerLeft {}
      usleep(50_000)
    }
    #expect(gone)
  }
}
