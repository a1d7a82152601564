/// Is the Secret Service's default collection unlocked, and who provides the service? Asked
/// over a bare session-bus connection (no libsecret, no GLib), for a cache that must honour a
/// lock taken by any client: four calls in two round trips after the login, every reply
/// checked. Nil means "cannot tell", which callers treat like "locked".
public enum SecretServiceLockProbe {
  /// What the probe found.
  public struct State: Equatable, Sendable {
    /// The unique bus name (":1.42") of the process that owns org.freedesktop.secrets: never
    /// reused on that bus, so a restarted or replaced provider has another.
    public var owner: String
    public var collectionLocked: Bool
  }

  static let service = "org.freedesktop.secrets"

  /// The state of the collection the `default` alias names, asked on the bus at `address`
  /// within `timeout` seconds; nil when anything is unexpected.
  public static func state(busAddress address: String, timeout: Double = 1) -> State? {
    let readAlias = DBusMessage.call(
      serial: 3, destination: service, path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service",
      member: "ReadAlias", arguments: ["default"], flags: DBusMessage.noAutoStart)
    guard let (bus, owner, reply) = connect(busAddress: address, timeout: timeout, asking: readAlias),
      case .objectPath(let collection)? = onlyValue(reply, from: owner), collection != "/"
    else { return nil }
    let get = DBusMessage.call(
      serial: 4, destination: owner, path: collection, interface: "org.freedesktop.DBus.Properties", member: "Get",
      arguments: ["org.freedesktop.Secret.Collection", "Locked"], flags: DBusMessage.noAutoStart)
    guard bus.send([get]), let answer = bus.replies(to: [4]),
      case .variant(.boolean(let locked))? = onlyValue(answer[4], from: owner)
    else { return nil }
    return State(owner: owner, collectionLocked: locked)
  }

  /// A connection that has said Hello, the unique name of the Secret Service's owner, and the
  /// reply to `question` (serial 3), all in one round trip after the login. Nothing is started
  /// by D-Bus activation for it (that could start a second daemon).
  static func connect(
    busAddress address: String, timeout: Double, asking question: DBusMessage
  ) -> (SessionBusConnection, owner: String, reply: DBusMessage)? {
    guard let bus = SessionBusConnection(address: address, timeout: timeout) else { return nil }
    let first = [
      DBusMessage.call(
        serial: 1, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        member: "Hello"),
      .call(
        serial: 2, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        member: "GetNameOwner", arguments: [service]),
      question,
    ]
    guard bus.begin(sending: first), let replies = bus.replies(to: [1, 2, 3]),
      case .string(let owner)? = onlyValue(replies[2], from: "org.freedesktop.DBus"), owner.hasPrefix(":"),
      let reply = replies[3]
    else { return nil }
    return (bus, owner, reply)
  }

  /// The single value of a method return sent by `sender`; nil for an error or anything else.
  static func onlyValue(_ reply: DBusMessage?, from sender: String) -> DBusMessage.Value? {
    guard let reply, reply.kind == .methodReturn, reply.sender == sender, reply.body.count == 1 else { return nil }
    return reply.body[0]
  }
}
