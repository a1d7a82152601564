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
    let lock = DBusObject.secretService().call("Lock", [.array(element: "o", [.objectPath(collection)])])
    let locked = try #require(client.call([lock])?[0])
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

/// The order of the bare session's calls, against a stand-in for the bus and the provider that
/// reads each of the client's writes whole before answering any of it. gnome-keyring-daemon
/// registers a caller in an idle callback that GLib may run after the caller's first method
/// call: OpenSession as that first call finds no client, and the daemon dies with SIGTRAP
/// (g_variant_new on a NULL result). The session opens only after the provider has answered
/// a call of the connection (ReadAlias, harmless without a client).
@Suite struct SecretServiceSessionCallOrderTests {
  @Test func openSessionIsNeverInTheFirstWrite() throws {
    let bus = try StandInSecretBus()
    var session = try SecretServiceSession(busAddress: "unix:path=\(bus.path)", timeout: 10)
    #expect(session != nil, "the session opens against the stand-in")
    #expect(session?.providerProcessID == getpid())
    session = nil  // closes the connection: the stand-in's reads end
    let writes = bus.finish()
    let first = writes.first ?? []
    #expect(first.contains("ReadAlias"), "the provider is asked something harmless first: \(writes)")
    #expect(!first.contains("OpenSession"), "OpenSession waits for the provider's first answer: \(writes)")
    #expect(writes.dropFirst().contains { $0 == ["OpenSession"] }, "\(writes)")
  }

  /// From gnome-keyring, which needs no collection check before a search, the first read's
  /// SearchItems goes out with OpenSession: three round trips for a read, as secret-tool's;
  /// from any other provider, OpenSession goes alone and the search waits for the check.
  @Test(arguments: [true, false])
  func theFirstSearchGoesOutWithOpenSessionFromGnomeKeyring(gnomeKeyring: Bool) throws {
    let name = gnomeKeyring ? "gnome-keyring-daemon" : "keepassxc"
    let named = try SpawnedProcess("/bin/bash", ["-c", "exec -a \(name) sleep 30"], environment: [:])
    defer { named.terminate() }
    for _ in 0..<500 where programName(named.processIdentifier) != name { usleep(10_000) }
    let bus = try StandInSecretBus(providerPID: named.processIdentifier)
    let attributes = [("backend", "corp"), ("account", "alice"), ("kind", "password")]
    var session = try SecretServiceSession(busAddress: "unix:path=\(bus.path)", timeout: 10, searching: attributes)
    #expect(session?.providerName == (gnomeKeyring ? "gnome-keyring-daemon" : "keepassxc"))
    if gnomeKeyring {
      let found = try session?.search(attributes)
      #expect(found?.unlocked == [] && found?.locked == [], "the prefetched answer")
    }
    session = nil
    let writes = bus.finish()
    #expect(writes.count == 2, "\(writes)")
    #expect(writes.last == (gnomeKeyring ? ["OpenSession", "SearchItems"] : ["OpenSession"]), "\(writes)")
  }

  /// A property Get that reaches gnome-keyring before its record of the caller makes GLib's
  /// invoke_get_property_in_idle_cb fail its assertion (SIGABRT): the token cache's lock probe
  /// asks the collection's and the item's Locked only after the provider's first answer.
  @Test func theLockProbeAsksNoPropertyInTheFirstWrite() throws {
    let bus = try StandInSecretBus()
    let collection = "/org/freedesktop/secrets/collection/login"
    let expected = SecretServiceLockProbe.State(owner: ":1.2", collection: collection, collectionLocked: false)
    let state = try SecretServiceLockProbe.state(
      busAddress: "unix:path=\(bus.path)", timeout: 10, expected: expected, item: collection + "/1")
    #expect(state == expected, "the probe still answers")
    let writes = bus.finish()
    #expect(!(writes.first ?? []).contains("Get"), "\(writes)")
    #expect(writes.dropFirst().contains { $0 == ["Get", "Get"] }, "both Locked asked at once, after: \(writes)")
  }

  /// The same for doctor's labels of unclaimed items.
  @Test func doctorsLabelsAreAskedAfterTheProvidersFirstAnswer() throws {
    let bus = try StandInSecretBus()
    let item = "/org/freedesktop/secrets/collection/login/1"
    let labels = SecretServiceItems.labels(of: [item], busAddress: "unix:path=\(bus.path)", timeout: 10)
    #expect(labels == [item: "a label"])
    let writes = bus.finish()
    #expect(!(writes.first ?? []).contains("Get"), "\(writes)")
  }
}

/// A unix socket that plays the session bus and gnome-keyring for one connection: each batch
/// of messages (everything that arrives until 300 ms pass without more) is recorded by member,
/// then answered; just enough for SecretServiceSession's opening.
final class StandInSecretBus: @unchecked Sendable {
  let path: String
  private let listener: Int32
  private let lock = NSLock()
  private var writes: [[String]] = []
  private let done = DispatchSemaphore(value: 0)

  /// The process the stand-in says provides the service (GetConnectionUnixProcessID).
  let providerPID: Int32

  init(providerPID: Int32 = getpid()) throws {
    self.providerPID = providerPID
    path = "/tmp/accounts-standin-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard listener >= 0, bound == 0, listen(listener, 1) == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    Thread.detachNewThread { [self] in
      serve()
      done.signal()
    }
  }

  /// Waits (10 s at most) for the client to close; the members of each batch, in order.
  func finish() -> [[String]] {
    _ = done.wait(timeout: .now() + 10)
    close(listener)
    unlink(path)
    return lock.withLock { writes }
  }

  private func serve() {
    var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, 10_000) == 1 else { return }
    let client = accept(listener, nil, nil)
    guard client >= 0 else { return }
    defer { close(client) }
    var pending: [UInt8] = []
    // The authentication, answered at once (the client sends its messages without waiting).
    let begin = Array("BEGIN\r\n".utf8)
    while !(pending.count >= begin.count && (0...(pending.count - begin.count)).contains { Array(pending[$0..<$0 + begin.count]) == begin }) {
      guard let more = read(client, waiting: 10_000) else { return }
      pending += more
    }
    let end = (0...(pending.count - begin.count)).first { Array(pending[$0..<$0 + begin.count]) == begin }! + begin.count
    pending.removeFirst(end)
    guard write(client, Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8)) else { return }
    var serial: UInt32 = 100
    while true {
      // One batch: whatever arrives until 300 ms pass without more.
      while let more = read(client, waiting: pending.isEmpty ? 10_000 : 300) { pending += more }
      var batch: [DBusMessage] = []
      while pending.count >= 16, let length = DBusMessage.length(ofHeader: pending[..<16]), pending.count >= length {
        guard let message = DBusMessage(decoding: Array(pending[..<length])) else { return }
        pending.removeFirst(length)
        batch.append(message)
      }
      if batch.isEmpty { return }  // the client closed
      lock.withLock { writes.append(batch.compactMap(\.member)) }
      var answers: [UInt8] = []
      for call in batch where call.kind == .methodCall {
        serial += 1
        answers += Self.answer(to: call, serial: serial, providerPID: providerPID).encoded()
      }
      guard write(client, answers) else { return }
    }
  }

  static func answer(to call: DBusMessage, serial: UInt32, providerPID: Int32) -> DBusMessage {
    let bus = "org.freedesktop.DBus"
    let keyring = ":1.2"
    let (sender, body): (String, [DBusMessage.Value]) =
      switch call.member {
      case "Hello": (bus, [.string(":1.7")])
      case "GetNameOwner": (bus, [.string(keyring)])
      case "GetConnectionUnixProcessID": (bus, [.uint32(UInt32(providerPID))])
      case "SearchItems": (keyring, [.array(element: "o", []), .array(element: "o", [])])
      case "ReadAlias": (keyring, [.objectPath("/org/freedesktop/secrets/collection/login")])
      case "OpenSession": (keyring, [.variant(.bytes([2])), .objectPath("/org/freedesktop/secrets/session/s1")])
      case "Get" where call.body.count == 2 && call.body[1] == .string("Locked"): (keyring, [.variant(.boolean(false))])
      case "Get" where call.body.count == 2 && call.body[1] == .string("Label"): (keyring, [.variant(.string("a label"))])
      default: (keyring, [])
      }
    return DBusMessage(
      kind: .methodReturn, serial: serial, replySerial: call.serial, destination: ":1.7", sender: sender, body: body)
  }

  /// Some bytes, or nil at the end, on an error, or when nothing came within `milliseconds`.
  private func read(_ descriptor: Int32, waiting milliseconds: Int32) -> [UInt8]? {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, milliseconds) == 1 else { return nil }
    var chunk = [UInt8](repeating: 0, count: 4096)
    let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, $0.count, 0) }
    return count > 0 ? Array(chunk[0..<count]) : nil
  }

  private func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { send(descriptor, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
  }
}
