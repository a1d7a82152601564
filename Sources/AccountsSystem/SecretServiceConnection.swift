/// The Secret Service over a bare session-bus connection (no libsecret, no GLib): who provides
/// it, and its objects as calls address them. Nothing is started by D-Bus activation for this
/// client (that could start a second daemon), and only the provider found when the connection
/// opened answers: a reply from anyone else counts as none.
final class SecretServiceConnection {
  let bus: SessionBusConnection
  /// The unique bus name (":1.42") of the process that owns the service: never reused on that
  /// bus, so a restarted or replaced provider has another.
  let owner: String
  /// How long each exchange may take, as `Silent` reports it.
  let timeout: Double

  private init(bus: SessionBusConnection, owner: String, timeout: Double) {
    self.bus = bus
    self.owner = owner
    self.timeout = timeout
  }

  /// Connects to the bus at `address`, says Hello, asks who owns the service and asks
  /// `questions` too, all in one write and one round trip: the connection and the replies to
  /// `questions`, in their order. Nil when anything is unexpected; `Silent` when the deadline
  /// (`timeout` seconds, for this exchange) passed first.
  ///
  /// `questions` are the bus daemon's calls and the service's ReadAlias only
  /// (`isOpeningCall`): gnome-keyring 42 makes its record of a caller in an idle callback that
  /// GLib may run after the calls of the caller's first write, and a property Get (GLib's
  /// assertion, SIGABRT) or an OpenSession (a NULL reply, SIGTRAP) that finds no record takes
  /// the whole daemon down, and a SearchItems gets an UnknownMethod error (on a busy machine,
  /// now and then). ReadAlias answers without one; every other call goes out after the
  /// provider has answered this first exchange.
  static func open(
    busAddress address: String, timeout: Double, asking questions: [DBusCall]
  ) throws(SecretServiceLockProbe.Silent) -> (SecretServiceConnection, replies: [DBusMessage])? {
    precondition(questions.allSatisfy(\.isOpeningCall), "only the bus's calls and ReadAlias open a connection")
    guard let bus = SessionBusConnection(address: address, timeout: timeout) else { return nil }
    let getNameOwner = DBusObject.bus.call("GetNameOwner", [.string(DBusObject.secretServiceName)])
    guard let replies = bus.call([getNameOwner] + questions) else {
      if bus.timedOut { throw SecretServiceLockProbe.Silent(seconds: timeout) }
      return nil
    }
    guard case .string(let owner)? = replies[0].onlyValue(from: DBusObject.bus.destination), owner.hasPrefix(":") else {
      return nil
    }
    return (SecretServiceConnection(bus: bus, owner: owner, timeout: timeout), Array(replies.dropFirst()))
  }

  /// Sends `calls` in one write: their replies in the same order; nil when one cannot be read,
  /// `Silent` when the deadline passed first.
  func call(_ calls: [DBusCall]) throws(SecretServiceLockProbe.Silent) -> [DBusMessage]? {
    guard let replies = bus.call(calls) else {
      if bus.timedOut { throw SecretServiceLockProbe.Silent(seconds: timeout) }
      return nil
    }
    return replies
  }

  /// The body of `reply` when the provider returned it; nil for an error or anyone else's.
  func returned(_ reply: DBusMessage?) -> [DBusMessage.Value]? {
    reply?.returned(from: owner)
  }

  /// The single value of `reply` when the provider returned it; nil otherwise.
  func value(_ reply: DBusMessage?) -> DBusMessage.Value? {
    reply?.onlyValue(from: owner)
  }

  /// The provider's service object (by its unique name: a replaced provider cannot answer).
  var service: DBusObject { .secretService(at: owner) }

  /// The provider's collection at `path`.
  func collection(_ path: String) -> DBusObject { .secretCollection(path, at: owner) }

  /// The provider's item at `path`.
  func item(_ path: String) -> DBusObject { .secretItem(path, at: owner) }
}

extension DBusObject {
  /// The Secret Service's well-known bus name.
  public static let secretServiceName = "org.freedesktop.secrets"

  /// The Secret Service's service object at `destination`: its well-known name (for the calls
  /// that go out before its owner is known), or that owner's unique name.
  public static func secretService(at destination: String = secretServiceName) -> DBusObject {
    secret("Service", "/org/freedesktop/secrets", at: destination)
  }

  /// The collection at `path` of the Secret Service at `destination`.
  static func secretCollection(_ path: String, at destination: String) -> DBusObject {
    secret("Collection", path, at: destination)
  }

  /// The item at `path` of the Secret Service at `destination`.
  static func secretItem(_ path: String, at destination: String = secretServiceName) -> DBusObject {
    secret("Item", path, at: destination)
  }

  /// An object of the Secret Service's, whose calls start nothing by D-Bus activation.
  private static func secret(_ interface: String, _ path: String, at destination: String) -> DBusObject {
    DBusObject(
      destination: destination, path: path, interface: "org.freedesktop.Secret." + interface,
      flags: DBusMessage.noAutoStart)
  }
}

extension DBusCall {
  /// Service.ReadAlias("default"): the collection new items go to ("/" for none).
  static func readDefaultAlias(at destination: String = DBusObject.secretServiceName) -> DBusCall {
    DBusObject.secretService(at: destination).call("ReadAlias", [.string("default")])
  }

  /// Whether this call may go out in a connection's opening write (`SecretServiceConnection.open`):
  /// the bus daemon's own, or the keyring's ReadAlias, which it answers before it has a record
  /// of the caller.
  var isOpeningCall: Bool {
    object.destination == DBusObject.bus.destination
      || (object.path == "/org/freedesktop/secrets" && interface == "org.freedesktop.Secret.Service"
        && member == "ReadAlias")
  }

  /// Service.SearchItems for the items of the accounts schema with `attributes`.
  static func searchItems(_ attributes: [(String, String)], at destination: String = DBusObject.secretServiceName) -> DBusCall {
    DBusObject.secretService(at: destination).call("SearchItems", [SecretSchema.query(attributes)])
  }
}
