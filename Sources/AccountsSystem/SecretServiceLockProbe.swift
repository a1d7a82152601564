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

  /// The bus or the Secret Service did not answer within the probe's `seconds`: a hung keyring,
  /// which the libsecret path would wait on again (a caller fails at once instead).
  public struct Silent: Error, Sendable {
    public let seconds: Double
  }

  /// The state of the collection the `default` alias names, asked on the bus at `address`
  /// within `timeout` seconds; nil when anything is unexpected, `Silent` when nothing answered
  /// in time.
  ///
  /// With `expected` (what an earlier probe found), the property is read from that owner and
  /// collection in the same round trip as the other calls, and the answer counts only when
  /// the owner and the alias are still those: one round trip instead of two. Nil otherwise.
  ///
  /// With `item` (the path of the cached item, in `expected`'s collection), that item's own
  /// `Locked` is asked in the same round trip too: in an unlocked collection, an item deleted by
  /// another client (an error reply) is "cannot tell", and a locked item counts as locked.
  public static func state(
    busAddress address: String, timeout: Double = 1, expected: State? = nil, item: String? = nil
  ) throws(Silent) -> State? {
    let readAlias = DBusMessage.call(
      serial: 3, destination: service, path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service",
      member: "ReadAlias", arguments: ["default"], flags: DBusMessage.noAutoStart)
    func locked(_ serial: UInt32, owner: String, collection: String) -> DBusMessage {
      DBusMessage.call(
        serial: serial, destination: owner, path: collection, interface: "org.freedesktop.DBus.Properties",
        member: "Get", arguments: ["org.freedesktop.Secret.Collection", "Locked"], flags: DBusMessage.noAutoStart)
    }
    var speculative = expected.map { [locked(4, owner: $0.owner, collection: $0.collection)] } ?? []
    if let expected, let item {
      speculative.append(
        DBusMessage.call(
          serial: 5, destination: expected.owner, path: item, interface: "org.freedesktop.DBus.Properties",
          member: "Get", arguments: ["org.freedesktop.Secret.Item", "Locked"], flags: DBusMessage.noAutoStart))
    }
    guard let (bus, owner, replies) = try connect(busAddress: address, timeout: timeout, asking: [readAlias] + speculative),
      case .objectPath(let collection)? = onlyValue(replies[3], from: owner), collection != "/"
    else { return nil }
    if let expected {
      guard owner == expected.owner, collection == expected.collection,
        case .variant(.boolean(let isLocked))? = onlyValue(replies[4], from: owner)
      else { return nil }
      // A locked collection is locked whatever its items answer (KeePassXC hides them).
      guard item != nil, !isLocked else {
        return State(owner: owner, collection: collection, collectionLocked: isLocked)
      }
      guard case .variant(.boolean(let itemLocked))? = onlyValue(replies[5], from: owner) else { return nil }
      return State(owner: owner, collection: collection, collectionLocked: isLocked || itemLocked)
    }
    guard bus.send([locked(4, owner: owner, collection: collection)]), let answer = bus.replies(to: [4]) else {
      if bus.timedOut { throw Silent(seconds: timeout) }
      return nil
    }
    guard case .variant(.boolean(let isLocked))? = onlyValue(answer[4], from: owner) else { return nil }
    return State(owner: owner, collection: collection, collectionLocked: isLocked)
  }

  /// The path of the one item of the accounts schema with `attributes`, and the state of the
  /// collection that holds it, which must be the one the `default` alias names (a token read
  /// from another collection, e.g. after Seahorse's "Set as default", is probed nowhere else):
  /// ReadAlias and SearchItems in one round trip, then that collection's `Locked`. Nil when the
  /// item is not exactly one unlocked item in the alias collection, or anything is unexpected.
  public static func itemState(
    busAddress address: String, attributes: [(String, String)], timeout: Double = 1
  ) -> (state: State, item: String)? {
    let readAlias = DBusMessage.call(
      serial: 3, destination: service, path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service",
      member: "ReadAlias", arguments: ["default"], flags: DBusMessage.noAutoStart)
    let search = DBusMessage.call(
      serial: 4, destination: service, path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service",
      member: "SearchItems", values: [SecretSchema.query(attributes)], flags: DBusMessage.noAutoStart)
    guard let (bus, owner, replies) = try? connect(busAddress: address, timeout: timeout, asking: [readAlias, search]),
      case .objectPath(let collection)? = onlyValue(replies[3], from: owner), collection != "/",
      let found = replies[4], found.kind == .methodReturn, found.sender == owner, found.body.count == 2,
      case .array(_, let unlocked) = found.body[0], case .array(_, let locked) = found.body[1], locked.isEmpty,
      unlocked.count == 1, case .objectPath(let item) = unlocked[0], Self.collection(holding: item) == collection
    else { return nil }
    let lockedCall = DBusMessage.call(
      serial: 5, destination: owner, path: collection, interface: "org.freedesktop.DBus.Properties",
      member: "Get", arguments: ["org.freedesktop.Secret.Collection", "Locked"], flags: DBusMessage.noAutoStart)
    guard bus.send([lockedCall]), let answer = bus.replies(to: [5]),
      case .variant(.boolean(let isLocked))? = onlyValue(answer[5], from: owner)
    else { return nil }
    return (State(owner: owner, collection: collection, collectionLocked: isLocked), item)
  }

  /// The collection an item's object path lies in: the path without its last element.
  public static func collection(holding item: String) -> String? {
    guard let slash = item.lastIndex(of: "/"), slash != item.startIndex else { return nil }
    return String(item[..<slash])
  }

  /// A connection that has said Hello, the unique name of the Secret Service's owner, and the
  /// replies to `questions` (serials 3 and up), all in one write and one round trip. Nothing is
  /// started by D-Bus activation for it (that could start a second daemon). `Silent` when the
  /// deadline passed first.
  static func connect(
    busAddress address: String, timeout: Double, asking questions: [DBusMessage]
  ) throws(Silent) -> (SessionBusConnection, owner: String, replies: [UInt32: DBusMessage])? {
    guard let bus = SessionBusConnection(address: address, timeout: timeout) else { return nil }
    let first = [
      DBusMessage.call(
        serial: 1, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        member: "Hello"),
      .call(
        serial: 2, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
        member: "GetNameOwner", arguments: [service]),
    ]
    guard bus.begin(sending: first + questions), let replies = bus.replies(to: Set([1, 2] + questions.map { $0.serial }))
    else {
      if bus.timedOut { throw Silent(seconds: timeout) }
      return nil
    }
    guard case .string(let owner)? = onlyValue(replies[2], from: "org.freedesktop.DBus"), owner.hasPrefix(":") else {
      return nil
    }
    return (bus, owner, replies)
  }

  /// The single value of a method return sent by `sender`; nil for an error or anything else.
  static func onlyValue(_ reply: DBusMessage?, from sender: String) -> DBusMessage.Value? {
    guard let reply, reply.kind == .methodReturn, reply.sender == sender, reply.body.count == 1 else { return nil }
    return reply.body[0]
  }
}
