import AccountsJSON
import Testing

/// What `JSON.parse` reads: scalars, numbers, escapes and raw UTF-8, containers large and nested.
@Suite struct JSONParserTests {
  @Test func scalarsParseAtTheTopLevel() throws {
    #expect(try JSON.parse("null") == .null)
    #expect(try JSON.parse("true") == .bool(true))
    #expect(try JSON.parse("false") == .bool(false))
    #expect(try JSON.parse(#""text""#) == .string("text"))
    #expect(try JSON.parse("-12") == .number(JSONNumber(-12)))
    #expect(
      try JSON.parse(" \t\r\n 7 \t\r\n") == .number(JSONNumber(7)), "all four whitespace bytes")
  }

  @Test(arguments: [
    "0", "-0", "7", "-12", "1.5", "0.25", "-1.25e-10", "1E+2", "1e2", "6.02E23", "1e400",
    "123456789012345678901234567890", "-9223372036854775808", "0.000",
  ])
  func numbersKeepTheirText(_ text: String) throws {
    guard case .number(let number) = try JSON.parse(text) else {
      Issue.record("\(text) is not a number")
      return
    }
    #expect(number.text == text)
    #expect(JSONNumber(text: text) == number)
  }

  @Test func integersConvertOnlyWhenTheyAreIntegersThatFit() {
    #expect(JSONNumber(text: "42")?.int64 == 42)
    #expect(JSONNumber(text: "-0")?.int64 == 0)
    #expect(JSONNumber(text: "9223372036854775807")?.int64 == .max)
    #expect(JSONNumber(text: "-9223372036854775808")?.int64 == .min)
    #expect(JSONNumber(text: "9223372036854775808")?.int64 == nil)
    #expect(JSONNumber(text: "1.0")?.int64 == nil)
    #expect(JSONNumber(text: "1e3")?.int64 == nil)
    #expect(JSONNumber(Int64.min).text == "-9223372036854775808")
    #expect(JSONNumber(Int(12)).text == "12")
  }

  @Test func numberTextMustBeExactlyOneNumber() {
    for text in ["", " 1", "1 ", "+1", "01", "1.", ".5", "NaN", "\"1\"", "[1]", "0x10"] {
      #expect(JSONNumber(text: text) == nil, "\(text)")
    }
  }

  @Test func escapesDecode() throws {
    let text = #""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\u0000\uFFFF""#
    #expect(try JSON.parse(text) == .string("\"\\/\u{8}\u{C}\n\r\tAé€\u{0}\u{FFFF}"))
  }

  @Test func surrogatePairEscapesDecodeToOneScalar() throws {
    let value = try JSON.parse(#""\uD83D\uDE00 \ud83c\udf89 \uDBFF\uDFFF""#)
    #expect(value == .string("😀 🎉 \u{10FFFF}"))
    guard case .string(let string) = value else { return }
    #expect(string.unicodeScalars.count == 5)
  }

  @Test func rawUTF8PassesThrough() throws {
    // Two, three and four byte sequences, and the edges of each range.
    let bytes: [UInt8] =
      [0x22] + Array("é€😀".utf8) + [0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF]
      + [0xEE, 0x80, 0x80, 0xEF, 0xBF, 0xBF, 0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF, 0x22]
    let expected = "é€😀\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF}"
    #expect(try JSON.parse(bytes) == .string(expected))
  }

  @Test func escapesMixWithRawUTF8() throws {
    #expect(try JSON.parse(#""é\n€\t😀""#) == .string("é\n€\t😀"))
    #expect(try JSON.parse(#""\\""#) == .string("\\"))
    #expect(try JSON.parse(#""""#) == .string(""))
  }

  /// The string scanner reads eight bytes at a time; every byte that needs a closer look must
  /// be found wherever it falls in a word.
  @Test func specialBytesAreFoundAtEveryOffset() throws {
    for padding in 0..<20 {
      let run = String(repeating: "a", count: padding)
      let bytes = Array(run.utf8)
      #expect(try JSON.parse("\"\(run)é\(run)\"") == .string(run + "é" + run))
      #expect(try JSON.parse("\"\(run)\\\"\(run)\"") == .string(run + "\"" + run))
      #expect(try JSON.parse("\"\(run)\\\\\"") == .string(run + "\\"))
      #expect(try JSON.parse("[\"\(run)\", \"\(run)\"]") == .array([.string(run), .string(run)]))
      #expect(parseError("\"\(run)\u{1}\(run)\"")?.column == padding + 2)
      #expect(parseError("\"\(run)\u{1F}\"")?.column == padding + 2)
      #expect(parseError([0x22] + bytes + [0xFF] + bytes + [0x22])?.column == padding + 2)
      #expect(
        parseError([0x22] + bytes + [0xC3])
          == JSONParseError(
            line: 1, column: padding + 2, problem: "invalid UTF-8: truncated sequence"))
      #expect(
        parseError("\"" + run) == JSONParseError(line: 1, column: 1, problem: "unterminated string")
      )
    }
  }

  @Test func everyOtherPrintableASCIIByteIsPlain() throws {
    let printable = (0x20...0x7F).map { UInt8($0) }.filter { $0 != 0x22 && $0 != 0x5C }
    #expect(
      try JSON.parse([0x22] + printable + [0x22])
        == .string(String(decoding: printable, as: UTF8.self)))
  }

  @Test func objectsKeepTheirMemberOrder() throws {
    let value = try JSON.parse(#"{"z": 1, "a": {"y": [], "b": {}}, "m": null}"#)
    guard case .object(let object) = value else {
      Issue.record("not an object")
      return
    }
    #expect(object.keys == ["z", "a", "m"])
    #expect(object["a"] == .object(["y": .array([]), "b": .object([:])]))
    #expect(object["m"] == .null)
    #expect(object["missing"] == nil)
  }

  @Test func nestedContainersParse() throws {
    let value = try JSON.parse(#"[[], [[1]], {"a": [{"b": [true, false, null]}]}, "x"]"#)
    let expected: JSONValue = .array([
      .array([]),
      .array([.array([.number(JSONNumber(1))])]),
      .object(["a": .array([.object(["b": .array([.bool(true), .bool(false), .null])])])]),
      .string("x"),
    ])
    #expect(value == expected)
  }

  @Test func largeObjectsAndArraysParse() throws {
    let members = (0..<5000).map { "\"key\($0)\": [\($0)]" }
    guard case .object(let object) = try JSON.parse("{" + members.joined(separator: ",") + "}")
    else {
      Issue.record("not an object")
      return
    }
    #expect(object.count == 5000)
    #expect(object["key4321"] == .array([.number(JSONNumber(4321))]))
    #expect(object.keys.last == "key4999")
    let elements = try JSON.parse("[" + (0..<10_000).map(String.init).joined(separator: ",") + "]")
    #expect(elements == .array((0..<10_000).map { .number(JSONNumber($0)) }))
  }

  @Test func anIndexOfAThousandAccountsParses() throws {
    let text = Fixtures.index(accounts: 1000)
    #expect(text.utf8.count > 200_000)
    let root = JSONReader(try JSON.parse(Array(text.utf8)))
    let accounts = try root.array("accounts")
    #expect(accounts.count == 1000)
    #expect(try accounts[999].string("user") == "user999")
    #expect(try accounts[500].bool("remembered") == true)
    #expect(try accounts[1].optionalString("last_login") == nil)
    #expect(try accounts[2].object("session").string("userId") == "2")
  }
}

/// Documents shaped like the tool's own files.
enum Fixtures {
  /// An index like accounts.json with `accounts` accounts, pretty-printed as the tool writes it.
  static func index(accounts: Int) -> String {
    var root = JSONObject()
    root["version"] = .number(JSONNumber(1))
    root["auto_login"] = .string("user0@corp")
    root["previous_auto_login"] = .null
    root["accounts"] = .array(
      (0..<accounts).map { number in
        .object([
          "user": .string("user\(number)"),
          "backend": .string("corp"),
          "remembered": .bool(true),
          "added_at": .string("2026-11-22T07:00:00Z"),
          "last_login": number % 2 == 0 ? .string("2026-11-23T08:30:00Z") : .null,
          "token": number % 3 == 0
            ? .object(["expires_at": .string("2026-11-24T07:00:00Z")]) : .null,
          "session": .object(["userId": .string("\(number)"), "region": .string("eu-west")]),
        ])
      })
    return JSON.serialize(.object(root), pretty: true) + "\n"
  }
}
