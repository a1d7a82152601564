/// The members of a JSON object, in insertion order, with unique keys.
///
/// Order is kept because the tool's files are read and edited by people: a file written back
/// keeps its keys where they were, and `--json` output lists keys in a stable, meaningful order.
/// Equality is order-sensitive for the same reason (equal objects serialise identically).
///
/// Keys compare as Swift strings do, by canonical equivalence: `"é"` and `"e\u{301}"` are the
/// same key. The parser therefore rejects a document holding both as a duplicate, rather than
/// letting the `[String: String]` dictionaries the rest of the tool builds drop one silently.
public struct JSONObject: Equatable, Sendable, ExpressibleByDictionaryLiteral, Sequence {
  public typealias Element = (key: String, value: JSONValue)

  /// A member as stored: a struct rather than the `Element` tuple because arrays of tuples are
  /// copied and destroyed through slow generic witnesses.
  struct Member {
    var key: String
    var value: JSONValue
  }

  /// The members in order: one array, so that an object costs one allocation.
  private var members: [Member]
  /// Each key's position, built only once the object outgrows `linearSearchLimit`: the tool's
  /// objects have a handful of members, where a linear scan beats hashing every key, but a
  /// hostile file with 100,000 members must not make every lookup a scan.
  private var positions: [String: Int]?

  private static let linearSearchLimit = 16

  /// An empty object.
  public init() {
    members = []
    positions = nil
  }

  /// An object with the literal's members in the literal's order. Like `Dictionary`, a literal
  /// that repeats a key is a programming error and traps.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self.init()
    members.reserveCapacity(elements.count)
    for (key, value) in elements {
      precondition(position(of: key) == nil, "duplicate key \"\(key)\" in a JSONObject literal")
      appendNewMember(key, value)
    }
  }

  /// An object of the parser's members, whose keys it has checked to be unique.
  init(uniqueMembers members: [Member]) {
    self.members = members
    positions = nil
    if members.count > Self.linearSearchLimit { rebuildPositions() }
  }

  /// The number of members.
  public var count: Int { members.count }

  /// Whether the object has no members.
  public var isEmpty: Bool { members.isEmpty }

  /// The keys, in order.
  public var keys: [String] { members.map(\.key) }

  /// The values, in the order of `keys`.
  public var values: [JSONValue] { members.map(\.value) }

  /// The value of the member `key`, or nil when there is none.
  ///
  /// Setting a value replaces an existing member in place (it keeps its position) or appends a
  /// new one; setting nil removes the member.
  public subscript(key: String) -> JSONValue? {
    get {
      guard let position = position(of: key) else { return nil }
      return members[position].value
    }
    set {
      if let position = position(of: key) {
        if let newValue {
          members[position].value = newValue
        } else {
          removeMember(at: position)
        }
      } else if let newValue {
        appendNewMember(key, newValue)
      }
    }
  }

  /// Whether the object has a member `key`.
  public func contains(key: String) -> Bool {
    position(of: key) != nil
  }

  private func position(of key: String) -> Int? {
    if let positions { return positions[key] }
    return members.firstIndex { $0.key == key }
  }

  /// Appends a member the caller knows to be absent.
  private mutating func appendNewMember(_ key: String, _ value: JSONValue) {
    members.append(Member(key: key, value: value))
    if positions != nil {
      positions![key] = members.count - 1
    } else if members.count > Self.linearSearchLimit {
      rebuildPositions()
    }
  }

  private mutating func removeMember(at position: Int) {
    members.remove(at: position)
    // Every later member moved down one; removal is rare enough to simply start over.
    positions = nil
    if members.count > Self.linearSearchLimit { rebuildPositions() }
  }

  private mutating func rebuildPositions() {
    var positions = [String: Int](minimumCapacity: members.count)
    for (position, member) in members.enumerated() { positions[member.key] = position }
    self.positions = positions
  }

  /// Order-sensitive: the same keys with the same values in the same order.
  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    lhs.members.elementsEqual(rhs.members) { $0.key == $1.key && $0.value == $1.value }
  }

  public func makeIterator() -> Iterator {
    Iterator(members: members)
  }

  public var underestimatedCount: Int { members.count }

  /// Yields the members in order.
  public struct Iterator: IteratorProtocol {
    private let members: [Member]
    private var position = 0

    init(members: [Member]) {
      self.members = members
    }

    public mutating func next() -> Element? {
      guard position < members.count else { return nil }
      defer { position += 1 }
      return (members[position].key, members[position].value)
    }
  }
}
