/// A parsed value together with the path that leads to it, so that a file of the wrong shape is
/// reported as "accounts[1].remembered: expected a boolean, found a string" rather than as a
/// bare type mismatch.
///
/// Paths join members with "." and elements with "[i]": "backends.corp.settings",
/// "accounts[0]". The root's path is empty, so a member of the root is named by its key alone.
/// Keys are spelt as in the file (`JSON.escaped`).
///
/// Member accessors (`string(_:)`, `object(_:)`, ...) require this value to be an object. The
/// plain ones require the member and throw "missing" without it; the `optional` ones return
/// nil when the member is missing or null, and still throw when it has another type.
public struct JSONReader: Sendable {
  /// The last step of a path: readers keep their parent's path and this step, and spell out
  /// their own path only when asked (in practice: for an error). Reading the index of 1,000
  /// accounts would otherwise format thousands of path strings that nobody reads.
  private enum Step: Sendable {
    case none
    case member(String)
    case element(Int)
  }

  /// The value read.
  public let value: JSONValue
  private let parentPath: String
  private let step: Step

  /// A reader of `value`, found at `path` ("" for a whole document).
  public init(_ value: JSONValue, path: String = "") {
    self.value = value
    parentPath = path
    step = .none
  }

  private init(_ value: JSONValue, parentPath: String, step: Step) {
    self.value = value
    self.parentPath = parentPath
    self.step = step
  }

  /// Where `value` is in the document, e.g. "accounts[1].token"; "" for the root.
  public var path: String {
    switch step {
    case .none: parentPath
    case .member(let key): Self.path(parentPath, member: key)
    case .element(let position): "\(parentPath)[\(position)]"
    }
  }

  // MARK: Required members
  //
  // The scalar accessors take the member's value without building its path: a path is only
  // needed for an error, and the index of 1,000 accounts is read member by member on every
  // `accounts list`. On a mismatch they defer to the `as` accessor of a full reader, which
  // throws with the path.

  /// The string member `key`.
  public func string(_ key: String) throws(JSONShapeError) -> String {
    let member = try required(key)
    if case .string(let string) = member { return string }
    return try reader(of: member, at: key).asString()
  }

  /// The boolean member `key`.
  public func bool(_ key: String) throws(JSONShapeError) -> Bool {
    let member = try required(key)
    if case .bool(let bool) = member { return bool }
    return try reader(of: member, at: key).asBool()
  }

  /// The integer member `key`; see `asInt64()`.
  public func int64(_ key: String) throws(JSONShapeError) -> Int64 {
    let member = try required(key)
    if case .number(let number) = member, let integer = number.int64 { return integer }
    return try reader(of: member, at: key).asInt64()
  }

  /// A reader of the object member `key`.
  public func object(_ key: String) throws(JSONShapeError) -> JSONReader {
    let member = reader(of: try required(key), at: key)
    _ = try member.asObject()
    return member
  }

  /// Readers of the elements of the array member `key`, named "key[0]", "key[1]", ...
  public func array(_ key: String) throws(JSONShapeError) -> [JSONReader] {
    try reader(of: try required(key), at: key).asArray()
  }

  // MARK: Optional members

  /// The string member `key`, or nil when it is missing or null.
  public func optionalString(_ key: String) throws(JSONShapeError) -> String? {
    guard let member = try optional(key) else { return nil }
    if case .string(let string) = member { return string }
    return try reader(of: member, at: key).asString()
  }

  /// The boolean member `key`, or nil when it is missing or null.
  public func optionalBool(_ key: String) throws(JSONShapeError) -> Bool? {
    guard let member = try optional(key) else { return nil }
    if case .bool(let bool) = member { return bool }
    return try reader(of: member, at: key).asBool()
  }

  /// The integer member `key`, or nil when it is missing or null.
  public func optionalInt64(_ key: String) throws(JSONShapeError) -> Int64? {
    guard let member = try optional(key) else { return nil }
    if case .number(let number) = member, let integer = number.int64 { return integer }
    return try reader(of: member, at: key).asInt64()
  }

  /// A reader of the object member `key`, or nil when it is missing or null.
  public func optionalObject(_ key: String) throws(JSONShapeError) -> JSONReader? {
    guard let member = try optional(key) else { return nil }
    let reader = reader(of: member, at: key)
    _ = try reader.asObject()
    return reader
  }

  /// Readers of the elements of the array member `key`, or nil when it is missing or null.
  public func optionalArray(_ key: String) throws(JSONShapeError) -> [JSONReader]? {
    guard let member = try optional(key) else { return nil }
    return try reader(of: member, at: key).asArray()
  }

  /// A reader of the member `key` whatever its type (null included), or nil when there is no
  /// such member.
  public func member(_ key: String) throws(JSONShapeError) -> JSONReader? {
    guard let member = try asObject()[key] else { return nil }
    return reader(of: member, at: key)
  }

  // MARK: The value itself

  /// The value as an object.
  public func asObject() throws(JSONShapeError) -> JSONObject {
    guard case .object(let object) = value else { throw mismatch(expected: "an object") }
    return object
  }

  /// Readers of the value's elements, named "path[0]", "path[1]", ...
  public func asArray() throws(JSONShapeError) -> [JSONReader] {
    guard case .array(let elements) = value else { throw mismatch(expected: "an array") }
    let path = path
    var readers: [JSONReader] = []
    readers.reserveCapacity(elements.count)
    for (position, element) in elements.enumerated() {
      readers.append(JSONReader(element, parentPath: path, step: .element(position)))
    }
    return readers
  }

  /// The value as a string.
  public func asString() throws(JSONShapeError) -> String {
    guard case .string(let string) = value else { throw mismatch(expected: "a string") }
    return string
  }

  /// The value as a boolean.
  public func asBool() throws(JSONShapeError) -> Bool {
    guard case .bool(let bool) = value else { throw mismatch(expected: "a boolean") }
    return bool
  }

  /// The value as an `Int64`: a number written as an integer that fits. `1.5`, `1e3` and
  /// `1.0` are refused, naming the text, rather than rounded.
  public func asInt64() throws(JSONShapeError) -> Int64 {
    guard case .number(let number) = value else { throw mismatch(expected: "an integer") }
    guard let integer = number.int64 else {
      let isInteger = !number.text.utf8.contains { $0 == ASCII.period || $0 | 0x20 == 0x65 }
      let expected = isInteger ? "a 64-bit integer" : "an integer"
      throw JSONShapeError(path: path, problem: "expected \(expected), found \(number.text)")
    }
    return integer
  }

  // MARK: Helpers

  /// The value of the member `key`, which must exist.
  private func required(_ key: String) throws(JSONShapeError) -> JSONValue {
    guard let member = try asObject()[key] else {
      throw JSONShapeError(path: childPath(key), problem: "missing")
    }
    return member
  }

  /// The value of the member `key`, or nil when it is missing or null.
  private func optional(_ key: String) throws(JSONShapeError) -> JSONValue? {
    guard let member = try asObject()[key] else { return nil }
    if case .null = member { return nil }
    return member
  }

  private func reader(of member: JSONValue, at key: String) -> JSONReader {
    JSONReader(member, parentPath: path, step: .member(key))
  }

  private func childPath(_ key: String) -> String {
    Self.path(path, member: key)
  }

  /// The path of member `key` of the value at `path`, the key spelt as in the file
  /// (`JSON.escaped`): `backends.co\nrp`, never a raw line break or Swift's `\u{a}`. A key
  /// longer than `keyLimit` characters is cut there, with "…": a path names a place, and a key
  /// of kilobytes would make an error line of kilobytes.
  public static func path(_ path: String, member key: String) -> String {
    var key = JSON.escaped(key)
    if key.utf8.count > keyLimit, key.count > keyLimit { key = key.prefix(keyLimit) + "…" }
    return path.isEmpty ? key : "\(path).\(key)"
  }

  /// The most characters of a key a path spells.
  public static let keyLimit = 80

  private func mismatch(expected: String) -> JSONShapeError {
    JSONShapeError(path: path, problem: "expected \(expected), found \(value.kindDescription)")
  }
}
