/// Is the Secret Service's default collection unlocked, and who provides the service? Asked
/// over a bare session-bus connection (no libsecret, no GLib), for a cache that must honour a
/// lock taken by any client: GetNameOwner and ReadAlias("default"), then the collection's
/// `Locked` property, every reply checked. Nil means "cannot tell", which callers treat like "locked".
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

  /// The bus or the Secret Service did not answer within the probe's `seconds`: a hung keyring,
  /// which the libsecret path would wait on again (a caller fails at once instead).
  public struct Silent: Error, Sendable {
    public let seconds: Double
  }

  /// The state of the collection the `default` alias names, asked on the bus at `address`
  /// within `timeout` seconds; nil when anything is unexpected, `Silent` when nothing answered
  /// in time.
  ///
  /// With `expected` (what an earlier probe found), the answer counts only when the owner and
  /// the alias are still those, and the property is read from that owner and collection.
  ///
  /// With `item` (the path of the cached item, in `expected`'s collection), that item's own
  /// `Locked` is asked in the same round trip: in an unlocked collection, an item deleted by
  /// another client (an error reply) is "cannot tell", and a locked item counts as locked.
  /// The properties are asked after the first round trip, never in it (`SecretServiceConnection.open`).
  public static func state(
    busAddress address: String, timeout: Double = 1, expected: State? = nil, item: String? = nil
  ) throws(Silent) -> State? {
    guard
      let (connection, replies) = try SecretServiceConnection.open(
        busAddress: address, timeout: timeout, asking: [.readDefaultAlias()]),
      case .objectPath(let collection)? = connection.value(replies[0]), collection != "/"
    else { return nil }
    let owner = connection.owner
    guard let expected else {
      guard let isLocked = try connection.isLocked(collection) else { return nil }
      return State(owner: owner, collection: collection, collectionLocked: isLocked)
    }
    guard owner == expected.owner, collection == expected.collection else { return nil }
    var asked = [connection.collection(collection).property("Locked")]
    if let item { asked.append(connection.item(item).property("Locked")) }
    guard let answers = try connection.call(asked), case .variant(.boolean(let isLocked))? = connection.value(answers[0])
    else { return nil }
    // A locked collection is locked whatever its items answer (KeePassXC hides them).
    guard item != nil, !isLocked else {
      return State(owner: owner, collection: collection, collectionLocked: isLocked)
    }
    guard case .variant(.boolean(let itemLocked))? = connection.value(answers[1]) else { return nil }
    return State(owner: owner, collection: collection, collectionLocked: isLocked || itemLocked)
  }

  /// The path of the one item of the accounts schema with `attributes`, and the state of the
  /// collection that holds it, which must be the one the `default` alias names (a token read
  /// from another collection, e.g. after Seahorse's "Set as default", is probed nowhere else):
  /// ReadAlias, then SearchItems and that collection's `Locked` in one round trip. Nil when the
  /// item is not exactly one unlocked item in the alias collection, or anything is unexpected.
  public static func itemState(
    busAddress address: String, attributes: [(String, String)], timeout: Double = 1
  ) -> (state: State, item: String)? {
    guard
      let (connection, replies) = try? SecretServiceConnection.open(
        busAddress: address, timeout: timeout, asking: [.readDefaultAlias()]),
      case .objectPath(let collection)? = connection.value(replies[0]), collection != "/",
      let answers = try? connection.call([
        .searchItems(attributes, at: connection.owner), connection.collection(collection).property("Locked"),
      ]),
      let found = connection.returned(answers[0]), found.count == 2,
      case .array(_, let unlocked) = found[0], case .array(_, let locked) = found[1], locked.isEmpty,
      unlocked.count == 1, case .objectPath(let item) = unlocked[0], Self.collection(holding: item) == collection,
      case .variant(.boolean(let isLocked))? = connection.value(answers[1])
    else { return nil }
    return (State(owner: connection.owner, collection: collection, collectionLocked: isLocked), item)
  }

  /// The collection an item's object path lies in: the path without its last element.
  public static func collection(holding item: String) -> String? {
    guard let slash = item.lastIndex(of: "/"), slash != item.startIndex else { return nil }
    return String(item[..<slash])
  }
}

extension SecretServiceConnection {
  /// Whether the provider's collection at `path` is locked (its `Locked` property); nil when
  /// the answer is not a boolean from the provider.
  func isLocked(_ path: String) throws(SecretServiceLockProbe.Silent) -> Bool? {
    guard let replies = try call([collection(path).property("Locked")]),
      case .variant(.boolean(let isLocked))? = value(replies[0])
    else { return nil }
    return isLocked
  }
}
