// The D-Bus marshalling rules under DBusMessage: signatures, alignment, and bounded reads.

extension DBusMessage.Value {
  var signature: String {
    switch self {
    case .string: "s"
    case .objectPath: "o"
    case .signature: "g"
    case .boolean: "b"
    case .uint32: "u"
    case .bytes: "ay"
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
    case .bytes(let array):
      writeUInt32(UInt32(array.count))
      bytes += array
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

  /// More elements than any reply this client reads holds (a search over every item included).
  static let maximumArrayElements = 1 << 16

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
      if element == "y" {
        defer { offset = end }
        return .bytes(Array(bytes[offset..<end]))
      }
      var values: [DBusMessage.Value] = []
      while offset < end {
        // An element that takes no bytes would repeat forever; a count past the cap is no reply we read.
        let start = offset
        var elementTypes = element
        guard values.count < Self.maximumArrayElements, let value = value(&elementTypes, depth: depth + 1),
          elementTypes.isEmpty, offset > start
        else { return nil }
        values.append(value)
      }
      return offset == end ? .array(element: String(element), values) : nil
    case "{":
      guard align(8), let key = value(&types, depth: depth + 1), let value = value(&types, depth: depth + 1),
        types.popFirst() == "}"
      else { return nil }
      return .dictionaryEntry(key, value)
    case "(":
      // An empty structure is no type (the D-Bus specification; dbus-daemon refuses it too).
      guard types.first != ")", align(8) else { return nil }
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
