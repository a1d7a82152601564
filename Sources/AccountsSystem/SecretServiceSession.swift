import Glibc
import SecretMemory

/// A Secret Service session over a bare session-bus connection (no libsecret, no GLib): the
/// calls secret-tool makes to read one secret, in four round trips (five from a provider other
/// than gnome-keyring). The session is encrypted as
/// libsecret's is (`dh-ietf1024-sha256-aes128-cbc-pkcs7`), so a secret never crosses the bus
/// in clear. It only reads what is readable now: every other case (no provider, a locked
/// collection or item, a prompt, an error reply, anything malformed) is nil, for a caller that
/// then takes the libsecret path, which knows how to report, unlock or prompt.
public final class SecretServiceSession {
  /// The unique bus name of the process that owns org.freedesktop.secrets.
  public let owner: String
  /// That process's id (GetConnectionUnixProcessID).
  public let providerProcessID: Int32
  /// That process's program ("gnome-keyring-daemon", "keepassxc"), as libsecret's path names it.
  public let providerName: String?
  private let bus: SessionBusConnection
  private let session: String
  private let cipher: SecretSessionCipher
  private let timeout: Double
  /// The collection the `default` alias names ("/" for none), read with the first round trip.
  private let defaultCollection: String
  private var nextSerial: UInt32 = 10

  static let service = "org.freedesktop.secrets"

  /// Connects and, in one write and one round trip, says Hello, asks who owns the service, that
  /// process's id and the `default` alias; then, in a second round trip, opens an encrypted
  /// session (nothing started by D-Bus activation). Nil when any answer is not the expected one;
  /// `silent` when nothing answered within `timeout` seconds (each later read gets as long:
  /// `beginRead`); `providerLeft` when the provider left the bus before it answered.
  ///
  /// OpenSession is never a connection's first call to the provider: gnome-keyring-daemon (42.1
  /// here, and still in 50) registers a caller in an idle callback queued by a D-Bus message
  /// filter in its GDBus worker thread, and GLib's main loop can dispatch the method call queued
  /// just after it first (the context is unlocked while each source is checked). OpenSession
  /// then finds no client, its negotiation fails without an error, and the daemon completes the
  /// call with a NULL result: g_variant_new's g_error, SIGTRAP, and every client of the keyring
  /// gets NoReply. Once the provider has answered a call of this connection (ReadAlias, which
  /// needs no client and only answers "/" without one), the registration was queued before
  /// anything this connection sends next and runs first.
  public init?(busAddress address: String, timeout: Double) throws(Interruption) {
    guard let key = SecretServiceSessionKey() else { return nil }
    let bus: SessionBusConnection
    let owner: String
    let replies: [UInt32: DBusMessage]
    let daemon = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
    let questions = [
      DBusMessage.call(
        serial: 3, destination: daemon.0, path: daemon.1, interface: daemon.2, member: "GetConnectionUnixProcessID",
        arguments: [Self.service]),
      .call(
        serial: 5, destination: Self.service, path: "/org/freedesktop/secrets",
        interface: "org.freedesktop.Secret.Service", member: "ReadAlias", arguments: ["default"],
        flags: DBusMessage.noAutoStart),
    ]
    let connection: (SessionBusConnection, owner: String, replies: [UInt32: DBusMessage])?
    do {
      connection = try SecretServiceLockProbe.connect(busAddress: address, timeout: timeout, asking: questions)
    } catch {
      throw .silent(seconds: error.seconds)
    }
    guard let connected = connection else { return nil }
    (bus, owner, replies) = connected
    if Self.recipientLeft(replies[5]) { throw .providerLeft }
    guard case .uint32(let pid)? = SecretServiceLockProbe.onlyValue(replies[3], from: daemon.0),
      case .objectPath? = SecretServiceLockProbe.onlyValue(replies[5], from: owner)
    else { return nil }
    let open = DBusMessage.call(
      serial: 4, destination: owner, path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service",
      member: "OpenSession", values: [.string(SecretServiceSessionKey.algorithm), .variant(.bytes(key.publicKey))],
      flags: DBusMessage.noAutoStart)
    guard bus.send([open]), let openReplies = bus.replies(to: [4]) else {
      if bus.timedOut { throw .silent(seconds: timeout) }
      return nil
    }
    if Self.recipientLeft(openReplies[4]) { throw .providerLeft }
    guard let opened = openReplies[4], opened.kind == .methodReturn, opened.sender == owner, opened.body.count == 2,
      case .variant(.bytes(let servicePublicKey)) = opened.body[0], case .objectPath(let session) = opened.body[1],
      session != "/", case .objectPath(let defaultCollection)? = SecretServiceLockProbe.onlyValue(replies[5], from: owner),
      let cipher = key.agree(withServicePublicKey: servicePublicKey)
    else { return nil }
    self.defaultCollection = defaultCollection
    self.bus = bus
    self.owner = owner
    self.providerProcessID = Int32(bitPattern: pid)
    self.providerName = programName(Int32(bitPattern: pid))
    self.session = session
    self.cipher = cipher
    self.timeout = timeout
  }

  /// Starts another read of this session: its calls get a whole `timeout` again (the first
  /// read's began with the connection). A session kept for a command's later reads would
  /// otherwise call a keyring silent once the first read's wait had run out.
  public func beginRead() {
    bus.restartDeadline(timeout: timeout)
  }

  /// What Service.SearchItems found for the accounts schema and `attributes`: the items the
  /// caller may read now, and those the provider keeps locked. Nil on an error reply, and, where
  /// the read policy checks the default collection before a search (`SecretReadPolicy`), unless
  /// it exists and is unlocked, as libsecret's path checks it first too.
  public func search(_ attributes: [(String, String)]) throws(Interruption)
    -> (unlocked: [String], locked: [String])?
  {
    if SecretReadPolicy.checksCollectionBeforeSearch(provider: providerName) {
      guard defaultCollection != "/",
        let answer = try call(
          path: defaultCollection, interface: "org.freedesktop.DBus.Properties", member: "Get",
          values: [.string("org.freedesktop.Secret.Collection"), .string("Locked")]),
        case .variant(.boolean(false))? = SecretServiceLockProbe.onlyValue(answer, from: owner)
      else { return nil }
    }
    let found = try call(
      path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service", member: "SearchItems",
      values: [SecretSchema.query(attributes)])
    guard let found, found.body.count == 2, case .array("o", let unlocked) = found.body[0],
      case .array("o", let locked) = found.body[1]
    else { return nil }
    return (unlocked.compactMap(\.objectPath), locked.compactMap(\.objectPath))
  }

  /// The secret of the item at `item` (Item.GetSecret in this session), decrypted; nil on an
  /// error reply (a locked item, one deleted since the search) or anything malformed.
  public func secret(at item: String) throws(Interruption) -> SecretBytes? {
    let reply = try call(
      path: item, interface: "org.freedesktop.Secret.Item", member: "GetSecret", values: [.objectPath(session)])
    guard let reply, reply.body.count == 1, case .structure(let fields) = reply.body[0], fields.count == 4,
      case .objectPath(session) = fields[0], case .bytes(let parameters) = fields[1], case .bytes(let value) = fields[2]
    else { return nil }
    return cipher.decrypt(value: value, parameters: parameters)
  }

  /// One call to the provider (its unique name, so a replaced provider cannot answer) and its
  /// method return; nil for an error reply.
  private func call(path: String, interface: String, member: String, values: [DBusMessage.Value])
    throws(Interruption) -> DBusMessage?
  {
    let serial = nextSerial
    nextSerial += 1
    let message = DBusMessage.call(
      serial: serial, destination: owner, path: path, interface: interface, member: member, values: values,
      flags: DBusMessage.noAutoStart)
    guard bus.send([message]), let replies = bus.replies(to: [serial]) else {
      if bus.timedOut { throw .silent(seconds: timeout) }
      return nil
    }
    if Self.recipientLeft(replies[serial]) { throw .providerLeft }
    guard let reply = replies[serial], reply.kind == .methodReturn, reply.sender == owner else { return nil }
    return reply
  }
}

extension SecretServiceSession {
  /// Why a read ended that libsecret's path must not be asked to make again.
  public enum Interruption: Error, Sendable {
    /// Nothing answered within the read's `seconds`: libsecret would wait on it again.
    case silent(seconds: Double)
    /// The provider left the bus while a call waited on it: libsecret's path would ask whatever
    /// D-Bus activation starts in its place, another provider than the one rule 6 checked.
    case providerLeft
  }

  /// Whether `reply` is the bus's own error for a call whose recipient left before it answered
  /// (dbus-daemon's NoReply, "Message recipient disconnected from message bus without replying").
  static func recipientLeft(_ reply: DBusMessage?) -> Bool {
    guard let reply, reply.kind == .error, reply.sender == "org.freedesktop.DBus",
      reply.errorName == "org.freedesktop.DBus.Error.NoReply", case .string(let text)? = reply.body.first
    else { return false }
    return text.includes("disconnected")
  }
}

/// The program behind a process id: the base name of argv[0], which unlike /proc/PID/comm is
/// not cut at 15 characters ("gnome-keyring-daemon", not "gnome-keyring-d").
public func programName(_ pid: Int32) -> String? {
  let descriptor = open("/proc/\(pid)/cmdline", O_RDONLY | O_CLOEXEC)
  guard descriptor >= 0 else { return nil }
  defer { close(descriptor) }
  var buffer = [UInt8](repeating: 0, count: 4096)
  let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
  guard count > 0 else { return nil }
  let first = buffer[0..<count].prefix { $0 != 0 }
  let path = String(decoding: first, as: UTF8.self)
  return path.split(separator: "/").last.map(String.init) ?? path
}

extension DBusMessage.Value {
  var objectPath: String? {
    if case .objectPath(let path) = self { return path }
    return nil
  }
}
