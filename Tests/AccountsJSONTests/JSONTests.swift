import AccountsJSON
import Testing

/// Pseudo-random values and documents from fixed seeds: any failure replays exactly.
@Suite struct JSONTests {
  /// Scalars chosen to hit every escape and encoding path: ASCII, control characters, the
  /// characters JSON escapes, U+2028/U+2029, two to four byte UTF-8, the edges of each range.
  static let interestingScalars: [Unicode.Scalar] = [
    "a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\u{A}", "\u{C}",
    "\u{D}", "\u{1F}", "\u{7F}", "\u{80}", "é", "\u{301}", "\u{7FF}", "\u{800}", "€", "\u{2028}",
    "\u{2029}", "\u{D7FF}", "\u{E000}", "\u{FEFF}", "\u{FFFF}", "\u{10000}", "😀", "\u{10FFFF}",
  ]

  static func randomString(_ generator: inout SeededGenerator) -> String {
    var scalars = String.UnicodeScalarView()
    for _ in 0..<Int.random(in: 0...12, using: &generator) {
      if Bool.random(using: &generator) {
        scalars.append(interestingScalars.randomElement(using: &generator)!)
      } else {
        // Any scalar at all, surrogates excluded by Unicode.Scalar itself.
        var scalar: Unicode.Scalar?
        while scalar == nil {
          scalar = Unicode.Scalar(UInt32.random(in: 0...0x10FFFF, using: &generator))
        }
        scalars.append(scalar!)
      }
    }
    return String(scalars)
  }

  static func randomNumber(_ generator: inout SeededGenerator) -> JSONNumber {
    if Bool.random(using: &generator) {
      return JSONNumber(Int64.random(in: .min ... .max, using: &generator))
    }
    var text = Bool.random(using: &generator) ? "-" : ""
    text +=
      Bool.random(using: &generator)
      ? "0" : String(UInt32.random(in: 1...999_999, using: &generator))
    if Bool.random(using: &generator) {
      text += "." + String(UInt16.random(in: 0...9999, using: &generator))
    }
    if Bool.random(using: &generator) {
      text += ["e", "E", "e+", "e-", "E-"].randomElement(using: &generator)!
      text += String(UInt16.random(in: 0...400, using: &generator))
    }
    return JSONNumber(text: text)!
  }

  static func randomValue(_ generator: inout SeededGenerator, depth: Int) -> JSONValue {
    let kinds = depth >= 5 ? 5 : 7
    switch Int.random(in: 0..<kinds, using: &generator) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &generator))
    case 2, 3: return .number(randomNumber(&generator))
    case 4: return .string(randomString(&generator))
    case 5:
      return .array(
        (0..<Int.random(in: 0...5, using: &generator)).map { _ in
          randomValue(&generator, depth: depth + 1)
        })
    default:
      var object = JSONObject()
      for _ in 0..<Int.random(in: 0...6, using: &generator) {
        object[randomString(&generator)] = randomValue(&generator, depth: depth + 1)
      }
      return .object(object)
    }
  }

  @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
  func randomValuesRoundTripThroughBothLayouts(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    for _ in 0..<300 {
      let value = Self.randomValue(&generator, depth: 0)
      for pretty in [false, true] {
        let text = JSON.serialize(value, pretty: pretty)
        let parsed = try JSON.parse(text)
        #expect(parsed == value, "\(text)")
        #expect(JSON.serialize(parsed, pretty: pretty) == text, "byte-identical the second time")
      }
    }
  }

  @Test func prettyTextParsesBackToTheSameCompactText() throws {
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<300 {
      let value = Self.randomValue(&generator, depth: 0)
      let pretty = try JSON.parse(JSON.serialize(value, pretty: true))
      #expect(JSON.serialize(pretty, pretty: false) == JSON.serialize(value, pretty: false))
    }
  }

  /// Hostile input: random edits of valid documents must give a value or an error, never a
  /// crash, and whatever parses must round-trip.
  @Test(arguments: [11, 12, 13] as [UInt64])
  func mutatedDocumentsNeverCrash(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    let alphabet =
      Array("{}[]\":,\\/-+.0123456789eEtrufalsn u \t\n".utf8) + [
        0x00, 0x80, 0xC3, 0xED, 0xF4, 0xFF,
      ]
    var parsedCount = 0
    var rejectedCount = 0
    for _ in 0..<2000 {
      var bytes = Array(
        JSON.serialize(
          Self.randomValue(&generator, depth: 0), pretty: Bool.random(using: &generator)
        ).utf8)
      for _ in 0..<Int.random(in: 1...3, using: &generator) {
        let position = Int.random(in: 0...bytes.count, using: &generator)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0 where position < bytes.count: bytes.remove(at: position)
        case 1 where position < bytes.count:
          bytes[position] = alphabet.randomElement(using: &generator)!
        default: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
        }
      }
      do {
        let value = try JSON.parse(bytes)
        parsedCount += 1
        #expect(try JSON.parse(JSON.serialize(value, pretty: false)) == value)
      } catch {
        rejectedCount += 1
        #expect(error.line >= 1 && error.column >= 1)
        #expect(!error.description.contains("\n"), "\(error)")
        // The position lies within the input (or just past its end).
        #expect(
          error.line - 1 <= bytes.filter { $0 == 0x0A }.count && error.column <= bytes.count + 1)
      }
    }
    #expect(parsedCount > 0 && rejectedCount > 0, "the edits exercise both outcomes")
  }
}
