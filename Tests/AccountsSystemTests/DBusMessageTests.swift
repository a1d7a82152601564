import Testing

@testable import AccountsSystem

/// The little D-Bus wire format the token cache's lock probe speaks, checked against messages
/// laid out by hand from the specification (alignment counted from the message's start), and
/// everything it must refuse so that the probe answers "cannot tell".
@Suite struct DBusMessageTests {
  static func uint32(_ value: UInt32) -> [UInt8] { DBusWriter.littleEndian(value) }
  static func text(_ value: String) -> [UInt8] { Array(value.utf8) }

  /// `Properties.Get`'s reply: serial 7, to call 4, from ":1.3", a variant holding `true`.
  static let lockedReply: [UInt8] =
    text("l") + [2, 1, 1] + uint32(8) + uint32(7) + uint32(31)
    + [5, 1] + text("u") + [0] + uint32(4)
    + [7, 1] + text("s") + [0] + uint32(4) + text(":1.3") + [0]
    + [0, 0, 0] + [8, 1] + text("g") + [0] + [1] + text("v") + [0]
    + [0]  // the header ends at an 8-byte boundary
    + [1] + text("b") + [0] + [0] + uint32(1)

  @Test func aHelloIsLaidOutAsTheSpecificationSays() {
    let bytes = DBusObject.bus.call("Hello").message(serial: 1).encoded()
    #expect(bytes.count == 128)
    #expect(Array(bytes[0..<16]) == Self.text("l") + [1, 0, 1] + Self.uint32(0) + Self.uint32(1) + Self.uint32(109))
    #expect(Array(bytes[16..<24]) == [1, 1] + Self.text("o") + [0] + Self.uint32(21))
    #expect(Array(bytes[80..<88]) == [3, 1] + Self.text("s") + [0] + Self.uint32(5))
    #expect(Array(bytes[88..<94]) == Self.text("Hello") + [0])
    #expect(Array(bytes[96..<104]) == [6, 1] + Self.text("s") + [0] + Self.uint32(20))
    #expect(bytes[125...].allSatisfy { $0 == 0 }, "padding is zero")
  }

  @Test func aCallWithArgumentsRoundTrips() throws {
    let call = DBusObject.secretService().call("ReadAlias", [.string("default")]).message(serial: 3)
    let bytes = call.encoded()
    #expect(DBusMessage.length(ofHeader: bytes[..<16]) == bytes.count)
    let decoded = try #require(DBusMessage(decoding: bytes))
    #expect(decoded == call)
    #expect(decoded.body == [.string("default")])
    #expect(decoded.flags == DBusMessage.noAutoStart)
  }

  @Test func aReplyWithAVariantBooleanIsRead() throws {
    let reply = try #require(DBusMessage(decoding: Self.lockedReply))
    #expect(reply.kind == .methodReturn)
    #expect(reply.serial == 7)
    #expect(reply.replySerial == 4)
    #expect(reply.sender == ":1.3")
    #expect(reply.body == [.variant(.boolean(true))])
    #expect(reply.onlyValue(from: ":1.3") == .variant(.boolean(true)))
    #expect(reply.onlyValue(from: ":1.4") == nil, "another sender's answer is not taken")
  }

  @Test func malformedRepliesAreRefused() {
    var bigEndian = Self.lockedReply
    bigEndian[0] = UInt8(ascii: "B")
    #expect(DBusMessage(decoding: bigEndian) == nil)
    #expect(DBusMessage(decoding: Array(Self.lockedReply.dropLast())) == nil, "truncated")
    var padding = Self.lockedReply
    padding[47] = 1
    #expect(DBusMessage(decoding: padding) == nil, "non-zero padding")
    var boolean = Self.lockedReply
    boolean[52] = 2
    #expect(DBusMessage(decoding: boolean)?.body.isEmpty != false, "a boolean is 0 or 1")
    var version = Self.lockedReply
    version[3] = 2
    #expect(DBusMessage(decoding: version) == nil)
    var long = Self.lockedReply
    long.replaceSubrange(4..<8, with: Self.uint32(16 << 20))
    #expect(DBusMessage.length(ofHeader: long[..<16]) == nil, "longer than any reply this client reads")
    var string = Self.lockedReply
    string[36] = UInt8(ascii: "x")
    #expect(DBusMessage(decoding: string) == nil, "a string without its NUL")
    var noReplySerial = Self.lockedReply
    noReplySerial[16] = 9  // UNIX_FDS instead of REPLY_SERIAL
    #expect(DBusMessage(decoding: noReplySerial) == nil, "a reply names the call it answers")
  }

  @Test func arraysAndDictionariesAreLaidOutAndReadBack() throws {
    var writer = DBusWriter()
    writer.write(.array(element: "{ss}", [.dictionaryEntry(.string("k"), .string("v"))]))
    #expect(
      writer.bytes
        == Self.uint32(14) + [0, 0, 0, 0] + Self.uint32(1) + Self.text("k") + [0] + [0, 0] + Self.uint32(1) + Self.text("v") + [0],
      "the length counts the entries, not the padding before the first")
    var reader = DBusReader(writer.bytes)
    var types: Substring = "a{ss}"
    #expect(reader.value(&types) == .array(element: "{ss}", [.dictionaryEntry(.string("k"), .string("v"))]))
    #expect(types.isEmpty && reader.offset == writer.bytes.count)

    var empty = DBusWriter()
    empty.write(.array(element: "o", []))
    empty.write(.array(element: "o", [.objectPath("/a")]))
    var emptyReader = DBusReader(empty.bytes)
    var pair: Substring = "aoao"
    #expect(emptyReader.value(&pair) == .array(element: "o", []))
    #expect(emptyReader.value(&pair) == .array(element: "o", [.objectPath("/a")]))

    var overlong = DBusReader(Self.uint32(1000) + Self.uint32(1))
    var arrayType: Substring = "au"
    #expect(overlong.value(&arrayType) == nil, "an array longer than the message")
  }

  /// `ay` (a session key, an IV, an encrypted secret): a length and the bytes, no alignment
  /// after it; inside the Secret Service's `(oayays)` struct the string after it aligns again.
  @Test func byteArraysAreLaidOutAndReadBack() throws {
    var writer = DBusWriter()
    writer.write(.bytes([1, 2, 3]))
    writer.write(.string("t"))
    #expect(writer.bytes == Self.uint32(3) + [1, 2, 3] + [0] + Self.uint32(1) + Self.text("t") + [0])
    var reader = DBusReader(writer.bytes)
    var types: Substring = "ays"
    #expect(reader.value(&types) == .bytes([1, 2, 3]))
    #expect(reader.value(&types) == .string("t"))

    let secret = DBusMessage.Value.structure([
      .objectPath("/s"), .bytes(Array(repeating: 7, count: 16)), .bytes([]), .string("text/plain"),
    ])
    let message = DBusObject(destination: ":1.3", path: "/s", interface: "org.freedesktop.Secret.Item").call("M", [secret])
      .message(serial: 9)
    let decoded = try #require(DBusMessage(decoding: message.encoded()))
    #expect(decoded.body == [secret])
    #expect(secret.signature == "(oayays)")

    var short = DBusReader(Self.uint32(5) + [1, 2])
    var bytesType: Substring = "ay"
    #expect(short.value(&bytesType) == nil, "a byte array longer than the message")
  }

  /// A hostile bus's `a()`: an empty structure takes no bytes, so an array of them never ended
  /// while the values piled up in memory. Refused, in a variant of a whole reply too.
  @Test func emptyStructuresAndArraysThatDoNotAdvanceAreRefused() {
    let zeros = [UInt8](repeating: 0, count: 8)
    var bare = DBusReader(Self.uint32(8) + [0, 0, 0, 0] + zeros)
    var arrayType: Substring = "a()"
    #expect(bare.value(&arrayType) == nil)
    var lone = DBusReader(zeros)
    var structType: Substring = "()"
    #expect(lone.value(&structType) == nil, "an empty structure is no type")

    let body = [3] + Self.text("a()") + [0] + [0, 0, 0] + Self.uint32(8) + [0, 0, 0, 0] + zeros
    let endless =
      Array(Self.lockedReply[0..<4]) + Self.uint32(UInt32(body.count))
      + Array(Self.lockedReply[8..<(Self.lockedReply.count - 8)]) + body
    #expect(DBusMessage.length(ofHeader: endless[..<16]) == endless.count)
    #expect(DBusMessage(decoding: endless)?.body.isEmpty != false)

    var writer = DBusWriter()
    writer.write(.array(element: "(u)", [.structure([.uint32(1)]), .structure([.uint32(2)])]))
    var reader = DBusReader(writer.bytes)
    var structs: Substring = "a(u)"
    #expect(reader.value(&structs) == .array(element: "(u)", [.structure([.uint32(1)]), .structure([.uint32(2)])]))
  }

  @Test func arraysHoldAtMostTheCappedNumberOfElements() {
    let cap = DBusReader.maximumArrayElements
    for (count, readable) in [(cap, true), (cap + 1, false)] {
      var writer = DBusWriter()
      writer.write(.array(element: "u", Array(repeating: .uint32(0), count: count)))
      var reader = DBusReader(writer.bytes)
      var types: Substring = "au"
      #expect((reader.value(&types) != nil) == readable, "\(count) elements")
    }
  }

  @Test func completeTypesAreTakenOneAtATime() {
    for (signature, first) in [("s", "s"), ("asb", "as"), ("a{sv}u", "a{sv}"), ("(ou)s", "(ou)"), ("aas", "aas")] {
      var types = Substring(signature)
      #expect(DBusReader.completeType(&types).map(String.init) == first, "\(signature)")
      #expect(String(types) == String(signature.dropFirst(first.count)))
    }
    for broken in ["", "a", "(s", "}s", "a{s"] {
      var types = Substring(broken)
      #expect(DBusReader.completeType(&types) == nil, "\(broken)")
    }
  }

  @Test func busAddressesAreParsed() {
    #expect(SocketAddress("unix:path=/run/user/1000/bus") == SocketAddress(path: Self.text("/run/user/1000/bus"), abstract: false))
    #expect(
      SocketAddress("unix:abstract=/tmp/dbus-Ab%2c1,guid=0123") == SocketAddress(path: Self.text("/tmp/dbus-Ab,1"), abstract: true))
    #expect(SocketAddress("tcp:host=127.0.0.1,port=4") == nil)
    #expect(SocketAddress("unix:tmpdir=/tmp") == nil, "a listening address, not one to connect to")
    #expect(SocketAddress("unix:path=/a%2") == nil, "a broken escape")
    #expect(SocketAddress(Substring("unix:path=/" + String(repeating: "a", count: 120))) == nil, "longer than sun_path")
  }
}
