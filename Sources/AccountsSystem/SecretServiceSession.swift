import Glibc
import SecretMemory

/// A Secret Service session over a bare session-bus connection (no libsecret, no GLib): the
/// calls secret-tool makes to read one secret, in three round trips when the first search is
/// known at the start (`searching`), else four (five from a provider other than gnome-keyring). The session is encrypted as
/// libsecret's is (`dh-ietf1024-sha256-aes128-cbc-pkcs7`), so a secret never crosses the bus
/// in clear. It only reads what is readable now: every other case (no provider, a locked
/// collection or item, a prompt, an error reply, anything malformed) is nil, for a caller that
/// then takes the libsecret path, which knows how to report, unlock or prompt.
public final class SecretServiceSession {
  /// The unique bus name of the process that owns org.freedesktop.secrets.
  public var owner: String { connection.owner }
  /// That process's id (GetConnectionUnixProcessID).
  public let providerProcessID: Int32
  /// That process's program ("gnome-keyring-daemon", "keepassxc"), as libsecret's path names it.
  public let providerName: String?
  private let connection: SecretServiceConnection
  private let session: String
  private let cipher: SecretSessionCipher
  /// The collection the `default` alias names ("/" for none), read with the first round trip.
  private let defaultCollection: String
  /// The search asked with OpenSession (`searching`), kept for the first `search` of the same
  /// attributes.
  private var prefetched: (attributes: [(String, String)], reply: DBusMessage?)?

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
  ///
  /// `searching`: the attributes the first read will search for. Where the read policy needs
  /// no collection check before a search (gnome-keyring), SearchItems goes out with OpenSession,
  /// in the same second write: a read takes three round trips, as secret-tool's does.
  public init?(busAddress address: String, timeout: Double, searching: [(String, String)]? = nil)
    throws(Interruption)
  {
    guard let key = SecretServiceSessionKey() else { return nil }
    let questions = [
      DBusObject.bus.call("GetConnectionUnixProcessID", [.string(DBusObject.secretServiceName)]),
      .readDefaultAlias(),
    ]
    let connected: (SecretServiceConnection, replies: [DBusMessage])?
    do throws(SecretServiceLockProbe.Silent) {
      connected = try SecretServiceConnection.open(busAddress: address, timeout: timeout, asking: questions)
    } catch {
      throw .silent(seconds: error.seconds)
    }
    guard let (connection, replies) = connected else { return nil }
    if Self.recipientLeft(replies[1]) { throw .providerLeft }
    guard case .uint32(let pid)? = replies[0].onlyValue(from: DBusObject.bus.destination),
      case .objectPath(let defaultCollection)? = connection.value(replies[1])
    else { return nil }
    let providerName = programName(Int32(bitPattern: pid))
    let openSession = connection.service.call(
      "OpenSession", [.string(SecretServiceSessionKey.algorithm), .variant(.bytes(key.publicKey))])
    let search = searching.flatMap { attributes in
      SecretReadPolicy.checksCollectionBeforeSearch(provider: providerName)
        ? nil : (attributes, DBusCall.searchItems(attributes, at: connection.owner))
    }
    let answers = try Self.call([openSession] + (search.map { [$0.1] } ?? []), on: connection)
    guard let opened = connection.returned(answers?[0]), opened.count == 2,
      case .variant(.bytes(let servicePublicKey)) = opened[0], case .objectPath(let session) = opened[1], session != "/",
      let cipher = key.agree(withServicePublicKey: servicePublicKey)
    else { return nil }
    self.defaultCollection = defaultCollection
    self.connection = connection
    self.providerProcessID = Int32(bitPattern: pid)
    self.providerName = providerName
    self.session = session
    self.cipher = cipher
    if let search { prefetched = (search.0, answers?[1]) }
  }

  /// Starts another read of this session: its calls get a whole `timeout` again (the first
  /// read's began with the connection). A session kept for a command's later reads would
  /// otherwise call a keyring silent once the first read's wait had run out.
  public func beginRead() {
    connection.bus.restartDeadline(timeout: connection.timeout)
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
        case .variant(.boolean(false))? = connection.value(try call(connection.collection(defaultCollection).property("Locked")))
      else { return nil }
    }
    var found = prefetched.flatMap { kept in kept.attributes.elementsEqual(attributes, by: ==) ? kept.reply : nil }
    prefetched = nil
    if found == nil { found = try call(.searchItems(attributes, at: connection.owner)) }
    guard let found,
      let lists = connection.returned(found), lists.count == 2,
      case .array("o", let unlocked) = lists[0], case .array("o", let locked) = lists[1]
    else { return nil }
    return (unlocked.compactMap(\.objectPath), locked.compactMap(\.objectPath))
  }

  /// The secret of the item at `item` (Item.GetSecret in this session), decrypted; nil on an
  /// error reply (a locked item, one deleted since the search) or anything malformed.
  public func secret(at item: String) throws(Interruption) -> SecretBytes? {
    guard let reply = try call(connection.item(item).call("GetSecret", [.objectPath(session)])),
      let body = connection.returned(reply), body.count == 1, case .structure(let fields) = body[0], fields.count == 4,
      case .objectPath(session) = fields[0], case .bytes(let parameters) = fields[1], case .bytes(let value) = fields[2]
    else { return nil }
    return cipher.decrypt(value: value, parameters: parameters)
  }

  /// One call to the provider and its reply, which the caller takes only from the provider;
  /// nil when none could be read.
  private func call(_ call: DBusCall) throws(Interruption) -> DBusMessage? {
    try Self.call(call, on: connection)
  }

  private static func call(_ call: DBusCall, on connection: SecretServiceConnection) throws(Interruption) -> DBusMessage? {
    try Self.call([call], on: connection)?[0]
  }

  /// `calls` in one write, their replies in order; nil when they could not be read.
  private static func call(_ calls: [DBusCall], on connection: SecretServiceConnection) throws(Interruption)
    -> [DBusMessage]?
  {
    let replies: [DBusMessage]?
    do throws(SecretServiceLockProbe.Silent) {
      replies = try connection.call(calls)
    } catch {
      throw .silent(seconds: error.seconds)
    }
    if replies?.contains(where: Self.recipientLeft) == true { throw .providerLeft }
    return replies
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
    guard let reply, reply.kind == .error, reply.sender == DBusObject.bus.destination,
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
