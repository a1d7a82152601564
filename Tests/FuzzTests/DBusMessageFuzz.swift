@testable import AccountsSystem

/// The bare session-bus client's reader (`DBusMessage`), which reads whatever arrives on the
/// socket: messages of every type it reads, written by its own encoder, decode back to the same
/// message; those messages mutated, whole messages of other types and random bytes decode to a
/// message or to nil, and never trap or hang; a message decoded from any bytes encodes to bytes
/// that decode to the same message again.
enum DBusMessageFuzz {
  /// Bytes that matter in a message: its endianness, kinds, version, header field codes, type
  /// codes, lengths near the bounds, padding.
  static let pieces = [
    "l", "B", "\u{1}", "\u{2}", "\u{3}", "\u{4}", "\u{5}", "\u{7}", "\u{8}", "\u{9}", "\u{0}\u{0}\u{0}\u{0}",
    "\u{FF}\u{FF}\u{FF}\u{7F}", "s", "o", "g", "b", "u", "v", "y", "ay", "a{sv}", "a()", "()", "(", ")", "{", "}", "aaaa",
    "x", "h",
  ]

  static func oneCase(_ fuzz: inout Case) {
    let message = randomMessage(&fuzz)
    let written = message.encoded()
    fuzz.check(DBusMessage.length(ofHeader: written[...]) == written.count, "the length of \(message) is misread")
    let read = DBusMessage(decoding: written)
    fuzz.check(read == message, "\(message) decodes as \(String(describing: read)) from \(written)")
    fuzz.tally(message.body.isEmpty ? "no body" : "a body")

    var bytes: [UInt8]
    switch fuzz.below(5) {
    case 0: bytes = fuzz.bytes(upTo: 64)
    case 1: bytes = Array(written.prefix(12)) + fuzz.bytes(upTo: 64)
    case 2:
      // Bytes changed in place: the lengths still add up, so the reader gets past them.
      bytes = written
      for _ in 0...fuzz.below(3) { bytes[fuzz.below(bytes.count)] = UInt8(truncatingIfNeeded: fuzz.below(256)) }
    default: bytes = fuzz.mutated(written, pieces: pieces)
    }
    _ = DBusMessage.length(ofHeader: bytes[...])
    guard let decoded = DBusMessage(decoding: bytes) else {
      fuzz.tally("refused")
      return
    }
    fuzz.tally("read")
    let again = decoded.encoded()
    fuzz.check(
      DBusMessage(decoding: again) == decoded,
      "\(decoded), decoded from \(bytes), encodes to \(again), which decodes otherwise")
  }

  /// A message of any kind with any of the header fields this client reads and a body of up to
  /// four values (a reply names the call it answers: the reader refuses one that does not).
  static func randomMessage(_ fuzz: inout Case) -> DBusMessage {
    let kind = fuzz.pick([DBusMessage.Kind.methodCall, .methodReturn, .error, .signal])
    func maybe(_ fuzz: inout Case) -> String? { fuzz.oneIn(2) ? nil : fuzz.text(upTo: 12) }
    var message = DBusMessage(
      kind: kind, flags: UInt8(truncatingIfNeeded: fuzz.below(256)), serial: 1 + UInt32(truncatingIfNeeded: fuzz.below(Int(Int32.max))),
      path: maybe(&fuzz), interface: maybe(&fuzz), member: maybe(&fuzz), errorName: maybe(&fuzz),
      replySerial: fuzz.oneIn(2) ? nil : UInt32(truncatingIfNeeded: fuzz.random.next()), destination: maybe(&fuzz),
      sender: maybe(&fuzz))
    if kind == .methodReturn || kind == .error, message.replySerial == nil { message.replySerial = 1 }
    for _ in 0..<fuzz.below(5) {
      let value = randomValue(&fuzz, type: randomType(&fuzz, depth: 0), depth: 0)
      // A body's signature is at most 255 bytes, as every signature.
      guard (message.body + [value]).map(\.signature).joined().utf8.count <= 255 else { break }
      message.body.append(value)
    }
    return message
  }

  /// A complete type the reader reads, nested at most three deep below `depth`.
  static func randomType(_ fuzz: inout Case, depth: Int) -> String {
    let basic = ["s", "o", "g", "b", "u"]
    guard depth < 3 else { return fuzz.pick(basic) }
    switch fuzz.below(10) {
    case 0: return "ay"
    case 1: return "v"
    case 2: return "a" + randomType(&fuzz, depth: depth + 1)
    case 3: return "a{" + fuzz.pick(basic) + randomType(&fuzz, depth: depth + 1) + "}"
    case 4: return "(" + (0...fuzz.below(3)).map { _ in randomType(&fuzz, depth: depth + 1) }.joined() + ")"
    default: return fuzz.pick(basic)
    }
  }

  /// A value of the complete type `type`, as the reader gives it back (`ay` as bytes).
  static func randomValue(_ fuzz: inout Case, type: String, depth: Int) -> DBusMessage.Value {
    switch type.first! {
    case "s": return .string(fuzz.text(upTo: 8))
    case "o": return .objectPath("/" + fuzz.text(upTo: 8))
    case "g": return .signature(randomType(&fuzz, depth: 2))
    case "b": return .boolean(fuzz.oneIn(2))
    case "u": return .uint32(UInt32(truncatingIfNeeded: fuzz.random.next()))
    case "v": return .variant(randomValue(&fuzz, type: randomType(&fuzz, depth: depth + 1), depth: depth + 1))
    case "(":
      var types = Substring(type.dropFirst().dropLast())
      var fields: [DBusMessage.Value] = []
      while let field = DBusReader.completeType(&types) { fields.append(randomValue(&fuzz, type: String(field), depth: depth + 1)) }
      return .structure(fields)
    default:  // "a"
      let element = String(type.dropFirst())
      if element == "y" { return .bytes(fuzz.bytes(upTo: 20)) }
      let values = (0..<fuzz.below(4)).map { _ in
        guard element.first == "{" else { return randomValue(&fuzz, type: element, depth: depth + 1) }
        var pair = Substring(element.dropFirst().dropLast())
        let key = DBusReader.completeType(&pair)!
        let value = DBusReader.completeType(&pair)!
        return .dictionaryEntry(
          randomValue(&fuzz, type: String(key), depth: depth + 1), randomValue(&fuzz, type: String(value), depth: depth + 1))
      }
      return .array(element: element, values)
    }
  }
}
