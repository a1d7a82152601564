/// Is the Secret Service's default collection unlocked, and who provides the service? Asked
/// over a bare session-bus connection (no libsecret, no GLib), for a cache that must honour a
/// lock taken by any client: GetNameOwner, ReadAlias("default") and the collection's `Locked`
/// property, every reply checked. Nil means "cannot tell", which callers treat like "locked".
public enum SecretServiceLockProbe {
  /// What the probe found.
  public struct State: Equatable, Sendable {
    /// The unique bus name (":1.42") of the process that owns org.freedesktop.secrets: never
    /// reused on that bus, so a restarted or replaced provider has another.
    public var owner: String
    /// The object path of the collection the `default` alias names.
    public var collection: String
    public var collectionLocked: Bool

    public init(owner: String, collection: String, collectionLocked: Bool) {
      self.owner = owner
      self.collection = collection
      self.collectionLocked = collectionLocked
    }
  }

  static let service = "org.freedesktop.secrets"

  /// The state of the collection the `default` alias names, asked on the bus at `address`
  /// within `timeout` seconds; nil when anything is unexpected.
  ///
  /// With `expected` (what an earlier probe found), the property is read from that owner and
  /// collection in the same round trip as the other calls, and the answer counts only when
  /// the owner and the alias are still those: one round trip instead of two. Nil otherwise.
  public static func state(busAddress address: String, timeout: Double = 1, expected: State? = nil) -> State? {
    let readAlias = DBusMessage.call(
      serial: 3, destination: service, path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service",
      member: "ReadAlias", arguments: ["default"], flags: DBusMessage.noAutoStart)
    func locked(_ serial: UInt32, owner: String, collection: String) -> DBusMessage {
      DBusMessage.call(
        serial: serial, destination: owner, path: collection, interface: "org.freedesktop.DBus.Properties",
        member: "Get", arguments: ["org.freedesktop.Secret.Collection", "Locked"], flags: DBusMessage.noAutoStart)
    }
    let speculative = expected.map { [locked(4, owner: $0.owner, collection: $0.collection)] } ?? []
    guard let (bus, owner, replies) = connect(busAddress: address, timeout: timeout, asking: [readAlias] + speculative),
      case .objectPath(let collection)? = onlyValue(replies[3], from: owner), collection != "/"
    else { return nil }
    if let expected {
      guard owner == expected.owner, collection == expected.collection,
        case .variant(.boolean(let isLocked))? = onlyValue(replies[4], from: owner)
      else { return nil }
      return State(owner: owner, collection: collection, collectionLocked: isLocked)
    }
    guard bus.send([locked(4, owner: owner, collection: collection)]), let answer = bus.replies(to: [4]),
      case .variant(.boolean(let isLocked))? = onlyValue(answer[4], from: owner)
    else { return nil }
    return State(owner: owner, collection: collection, collectionLocked: isLocked)
  }

  /// A connection that has said Hello, the unique name of the Secret Service's owner, and the
  /// replies to `questions` (serials 3 and up), all in one write and one round trip. Nothing is
  /// started by D-Bus activation for it (that could start a second daemon).
  static func connect(
    busAddress address: String, timeout: Double, asking questions: [DBusMessage]
  ) -> (SessionBusConnection, owner: String, replies: [UInt32: DBusMessage])? {
    guard let bus = SessionBusConnection(address: address, timeout: timeout) else { return nil }
    let first = [
      DBusMessage.call(
        serial: 1, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        member: "Hello"),
      .call(
        serial: 2, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        member: "GetNameOwner", arguments: [service]),
    ]
    guard bus.begin(sending: first + questions), let replies = bus.replies(to: Set([1, 2] + questions.map { $0.serial })),
      case .string(let owner)? = onlyValue(replies[2], from: "org.freedesktop.DBus"), owner.hasPrefix(":")
    else { return nil }
    return (bus, owner, replies)
  }

  /// The single value of a method return sent by `sender`; nil for an error or anything else.
  static func onlyValue(_ reply: DBusMessage?, from sender: String) -> DBusMessage.Value? {
    guard let reply, reply.kind == .methodReturn, reply.sender == sender, reply.body.count == 1 else { return nil }
    return reply.body[0]
  }
}
