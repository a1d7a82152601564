/// Just enough of the D-Bus wire format (little-endian) for the Secret Service questions this
/// client asks: strings, object paths, booleans, 32-bit numbers, variants, arrays, dictionary
/// entries and structs. Other types (and any malformed message) are refused, so that a caller
/// treats them as "cannot tell".
public struct DBusMessage: Equatable, Sendable {
  public enum Kind: UInt8, Sendable {
    case methodCall = 1
    case methodReturn = 2
    case error = 3
    case signal = 4
  }

  /// One value of a body this client reads or writes.
  public indirect enum Value: Equatable, Sendable {
    case string(String)
    case objectPath(String)
    case signature(String)
    case boolean(Bool)
    case uint32(UInt32)
    /// A variant: its value carries its own type.
    case variant(Value)
    /// An array of values of the complete type `element` ("s", "{ss}", ...).
    case array(element: String, [Value])
    case dictionaryEntry(Value, Value)
    case structure([Value])
  }

  public var kind: Kind
  public var flags: UInt8
  public var serial: UInt32
  public var path: String?
  public var interface: String?
  public var member: String?
  public var errorName: String?
  public var replySerial: UInt32?
  public var destination: String?
  public var sender: String?
  public var body: [Value]

  /// Do not start the destination's program (D-Bus activation) for this call.
  public static let noAutoStart: UInt8 = 0x2
  /// The largest message this client accepts (a search's reply names every item).
  public static let maximumLength = 8 << 20

  public init(
    kind: Kind, flags: UInt8 = 0, serial: UInt32, path: String? = nil, interface: String? = nil,
    member: String? = nil, errorName: String? = nil, replySerial: UInt32? = nil, destination: String? = nil,
    sender: String? = nil, body: [Value] = []
  ) {
    self.kind = kind
    self.flags = flags
    self.serial = serial
    self.path = path
    self.interface = interface
    self.member = member
    self.errorName = errorName
    self.replySerial = replySerial
    self.destination = destination
    self.sender = sender
    self.body = body
  }

  /// A method call with string arguments.
  public static func call(
    serial: UInt32, destination: String, path: String, interface: String, member: String,
    arguments: [String] = [], flags: UInt8 = 0
  ) -> DBusMessage {
    call(
      serial: serial, destination: destination, path: path, interface: interface, member: member,
      values: arguments.map { .string($0) }, flags: flags)
  }

  /// A method call with arguments of any type this client writes.
  public static func call(
    serial: UInt32, destination: String, path: String, interface: String, member: String,
    values: [Value], flags: UInt8 = 0
  ) -> DBusMessage {
    DBusMessage(
      kind: .methodCall, flags: flags, serial: serial, path: path, interface: interface, member: member,
      destination: destination, body: values)
  }

  // MARK: - Writing

  /// The message's bytes.
  public func encoded() -> [UInt8] {
    // The body starts at an 8-byte boundary, so its own offsets align the same way.
    var bodyBytes = DBusWriter()
    var signature = ""
    for value in body {
      signature += value.signature
      bodyBytes.write(value)
    }
    var header = DBusWriter()
    header.bytes += [UInt8(ascii: "l"), kind.rawValue, flags, 1]
    header.writeUInt32(UInt32(bodyBytes.bytes.count))
    header.writeUInt32(serial)
    var fields = DBusWriter()  // the fields array, aligned as if it started at offset 16
    fields.bytes = header.bytes + [0, 0, 0, 0]
    func field(_ code: UInt8, _ value: Value) {
      fields.align(8)
      fields.bytes.append(code)
      fields.write(.variant(value))
    }
    if let path { field(1, .objectPath(path)) }
    if let interface { field(2, .string(interface)) }
    if let member { field(3, .string(member)) }
    if let errorName { field(4, .string(errorName)) }
    if let destination { field(6, .string(destination)) }
    if !signature.isEmpty {
      fields.align(8)
      fields.bytes += [8, 1, UInt8(ascii: "g"), 0, UInt8(signature.utf8.count)] + Array(signature.utf8) + [0]
    }
    var message = fields
    let arrayLength = UInt32(fields.bytes.count - 16)
    message.bytes.replaceSubrange(12..<16, with: DBusWriter.littleEndian(arrayLength))
    message.align(8)
    return message.bytes + bodyBytes.bytes
  }

  // MARK: - Reading

  /// The length of the message that starts with these 16 bytes, or nil when they cannot start
  /// one this client reads (big-endian, another protocol version, too long).
  public static func length(ofHeader bytes: ArraySlice<UInt8>) -> Int? {
    guard bytes.count >= 16 else { return nil }
    var reader = DBusReader(Array(bytes.prefix(16)))
    guard let endian = reader.byte(), endian == UInt8(ascii: "l"), let _ = reader.byte(), let _ = reader.byte(),
      reader.byte() == 1, let bodyLength = reader.uint32(), let _ = reader.uint32(), let fieldsLength = reader.uint32()
    else { return nil }
    let headerLength = (16 + Int(fieldsLength) + 7) & ~7
    let total = headerLength + Int(bodyLength)
    return total <= maximumLength ? total : nil
  }

  /// Parses one whole message; nil when it is malformed or holds a type this client does not read.
  public init?(decoding bytes: [UInt8]) {
    guard let total = Self.length(ofHeader: bytes[...]), total == bytes.count else { return nil }
    var reader = DBusReader(bytes)
    _ = reader.byte()
    guard let kind = reader.byte().flatMap(Kind.init(rawValue:)), let flags = reader.byte(), reader.byte() == 1,
      let bodyLength = reader.uint32(), let serial = reader.uint32(), serial != 0, let fieldsLength = reader.uint32()
    else { return nil }
    self.init(kind: kind, flags: flags, serial: serial)
    let fieldsEnd = 16 + Int(fieldsLength)
    var signature = ""
    while reader.offset < fieldsEnd {
      guard reader.align(8), let code = reader.byte(), let fieldSignature = reader.signature() else { return nil }
      switch (code, fieldSignature) {
      case (1, "o"): path = reader.string()
      case (2, "s"): interface = reader.string()
      case (3, "s"): member = reader.string()
      case (4, "s"): errorName = reader.string()
      case (5, "u"): replySerial = reader.uint32()
      case (6, "s"): destination = reader.string()
      case (7, "s"): sender = reader.string()
      case (8, "g"): guard let value = reader.signature() else { return nil }; signature = value
      case (9, "u"): guard reader.uint32() != nil else { return nil }
      default: return nil
      }
      guard reader.offset <= fieldsEnd else { return nil }
    }
    guard reader.offset == fieldsEnd, reader.align(8), bytes.count - reader.offset == Int(bodyLength) else { return nil }
    if kind == .methodReturn || kind == .error { guard replySerial != nil else { return nil } }
    var types = Substring(signature)
    while !types.isEmpty {
      guard let value = reader.value(&types) else {
        // A body this client does not read: kept empty, with the signature's first type unknown.
        body = []
        return
      }
      body.append(value)
    }
    guard reader.offset == bytes.count else { return nil }
  }
}

extension DBusMessage.Value {
  var signature: String {
    switch self {
    case .string: "s"
    case .objectPath: "o"
    case .signature: "g"
    case .boolean: "b"
    case .uint32: "u"
    case .variant: "v"
    case .array(let element, _): "a" + element
    case .dictionaryEntry(let key, let value): "{" + key.signature + value.signature + "}"
    case .structure(let values): "(" + values.map(\.signature).joined() + ")"
    }
  }

  /// The boundary a value of the type that starts with `code` starts at.
  static func alignment(_ code: Character) -> Int {
    switch code {
    case "(", "{", "t", "x", "d": 8
    case "b", "u", "i", "a", "s", "o": 4
    case "n", "q": 2
    default: 1
    }
  }
}

/// Appends values with D-Bus alignment (offsets count from the start of the message).
struct DBusWriter {
  var bytes: [UInt8] = []

  static func littleEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value & 0xff), UInt8(value >> 8 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 24)]
  }

  mutating func align(_ boundary: Int) {
    while bytes.count % boundary != 0 { bytes.append(0) }
  }

  mutating func writeUInt32(_ value: UInt32) {
    align(4)
    bytes += Self.littleEndian(value)
  }

  mutating func write(_ value: DBusMessage.Value) {
    switch value {
    case .string(let text), .objectPath(let text):
      writeUInt32(UInt32(text.utf8.count))
      bytes += Array(text.utf8) + [0]
    case .signature(let text):
      bytes += [UInt8(text.utf8.count)] + Array(text.utf8) + [0]
    case .boolean(let flag):
      writeUInt32(flag ? 1 : 0)
    case .uint32(let number):
      writeUInt32(number)
    case .variant(let inner):
      write(.signature(inner.signature))
      write(inner)
    case .array(let element, let values):
      writeUInt32(0)
      let lengthAt = bytes.count - 4
      align(DBusMessage.Value.alignment(element.first ?? "y"))
      let start = bytes.count  // the length counts neither itself nor the padding after it
      for value in values { write(value) }
      bytes.replaceSubrange(lengthAt..<(lengthAt + 4), with: Self.littleEndian(UInt32(bytes.count - start)))
    case .dictionaryEntry(let key, let value):
      align(8)
      write(key)
      write(value)
    case .structure(let values):
      align(8)
      for value in values { write(value) }
    }
  }
}

/// Reads values with D-Bus alignment; every read is bounded by the bytes at hand.
struct DBusReader {
  let bytes: [UInt8]
  var offset = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Skips padding, which must be zero; false past the end or on non-zero padding.
  mutating func align(_ boundary: Int) -> Bool {
    while offset % boundary != 0 {
      guard offset < bytes.count, bytes[offset] == 0 else { return false }
      offset += 1
    }
    return true
  }

  mutating func byte() -> UInt8? {
    guard offset < bytes.count else { return nil }
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func uint32() -> UInt32? {
    guard align(4), offset + 4 <= bytes.count else { return nil }
    defer { offset += 4 }
    return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
      | UInt32(bytes[offset + 3]) << 24
  }

  /// A string or object path: length, UTF-8 bytes, NUL.
  mutating func string() -> String? {
    guard let length = uint32().map(Int.init), length < bytes.count, offset + length < bytes.count,
      bytes[offset + length] == 0
    else { return nil }
    defer { offset += length + 1 }
    return String(validating: bytes[offset..<(offset + length)], as: UTF8.self)
  }

  /// A signature: one length byte, ASCII, NUL.
  mutating func signature() -> String? {
    guard let length = byte().map(Int.init), offset + length < bytes.count, bytes[offset + length] == 0 else { return nil }
    defer { offset += length + 1 }
    return String(validating: bytes[offset..<(offset + length)], as: UTF8.self)
  }

  /// The next value of the signature `types`, which loses that value's type; nil for types
  /// this client does not read, values that do not match them, or nesting deeper than 8.
  mutating func value(_ types: inout Substring, depth: Int = 0) -> DBusMessage.Value? {
    guard depth < 8, let type = types.popFirst() else { return nil }
    switch type {
    case "s": return string().map { .string($0) }
    case "o": return string().map { .objectPath($0) }
    case "g": return signature().map { .signature($0) }
    case "u": return uint32().map { .uint32($0) }
    case "b":
      switch uint32() {
      case 0?: return .boolean(false)
      case 1?: return .boolean(true)
      default: return nil
      }
    case "v":
      guard let inner = signature() else { return nil }
      var innerTypes = Substring(inner)
      guard let value = value(&innerTypes, depth: depth + 1), innerTypes.isEmpty else { return nil }
      return .variant(value)
    case "a":
      guard let element = Self.completeType(&types), let length = uint32().map(Int.init),
        align(DBusMessage.Value.alignment(element.first!)), length <= bytes.count - offset
      else { return nil }
      let end = offset + length
      var values: [DBusMessage.Value] = []
      while offset < end {
        var elementTypes = element
        guard let value = value(&elementTypes, depth: depth + 1), elementTypes.isEmpty else { return nil }
        values.append(value)
      }
      return offset == end ? .array(element: String(element), values) : nil
    case "{":
      guard align(8), let key = value(&types, depth: depth + 1), let value = value(&types, depth: depth + 1),
        types.popFirst() == "}"
      else { return nil }
      return .dictionaryEntry(key, value)
    case "(":
      guard align(8) else { return nil }
      var values: [DBusMessage.Value] = []
      while types.first != ")" {
        guard let value = value(&types, depth: depth + 1) else { return nil }
        values.append(value)
      }
      types.removeFirst()
      return .structure(values)
    default: return nil
    }
  }

  /// Takes one complete type off the front of `types` ("s", "as", "a{sv}", "(ou)").
  static func completeType(_ types: inout Substring) -> Substring? {
    let whole = types
    var open = 0
    var length = 0
    for code in whole {
      length += 1
      switch code {
      case "a": continue  // an array's element type follows
      case "(", "{": open += 1
      case ")", "}": open -= 1
      default: break
      }
      guard open >= 0 else { return nil }
      if open == 0 { break }
    }
    guard open == 0, length > 0, whole.prefix(length).last != "a" else { return nil }
    types = whole.dropFirst(length)
    return whole.prefix(length)
  }
}
