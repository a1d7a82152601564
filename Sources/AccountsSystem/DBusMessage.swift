/// Just enough of the D-Bus wire format (little-endian) for the Secret Service questions this
/// client asks: strings, object paths, booleans, 32-bit numbers, byte arrays, variants, arrays,
/// dictionary entries and structs. Other types (and any malformed message) are refused, so that a caller
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
    /// An array of bytes (`ay`): a Secret Service session key, an IV, an encrypted secret.
    case bytes([UInt8])
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

  // MARK: - Writing

  /// The message's bytes (a reply's too, with its reply serial and sender: what a bus
  /// would send, for a test's stand-in).
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
    if let replySerial { field(5, .uint32(replySerial)) }
    if let destination { field(6, .string(destination)) }
    if let sender { field(7, .string(sender)) }
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
    guard reader.byte() == UInt8(ascii: "l"), reader.byte() != nil, reader.byte() != nil, reader.byte() == 1,
      let bodyLength = reader.uint32(), reader.uint32() != nil, let fieldsLength = reader.uint32()
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
      // Every field's value is read whole, or the message is refused.
      var types = Substring(fieldSignature)
      guard fieldSignature.count == 1, let value = reader.value(&types) else { return nil }
      switch (code, value) {
      case (1, .objectPath(let text)): path = text
      case (2, .string(let text)): interface = text
      case (3, .string(let text)): member = text
      case (4, .string(let text)): errorName = text
      case (5, .uint32(let number)): replySerial = number
      case (6, .string(let text)): destination = text
      case (7, .string(let text)): sender = text
      case (8, .signature(let text)): signature = text
      case (9, .uint32): break
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
