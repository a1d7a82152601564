import AccountsJSON
import Testing

/// `JSON.serialize`: compact and pretty text, what is escaped, and documents written back as read.
@Suite struct JSONSerializerTests {
  static let sample: JSONValue = .object([
    "name": .string("corp"),
    "settings": .object([:]),
    "secret_settings": .array([]),
    "accounts": .number(JSONNumber(3)),
    "list": .array([
      .number(JSONNumber(1)), .string("two"), .object(["x": .null]), .array([.bool(false)]),
    ]),
  ])

  @Test func compactOutputHasNoWhitespace() {
    let value: JSONValue = .object([
      "a": .number(JSONNumber(1)), "b": .array([.bool(true), .null]),
    ])
    #expect(JSON.serialize(value, pretty: false) == #"{"a":1,"b":[true,null]}"#)
    #expect(
      JSON.serialize(Self.sample, pretty: false)
        == #"{"name":"corp","settings":{},"secret_settings":[],"accounts":3,"list":[1,"two",{"x":null},[false]]}"#
    )
  }

  @Test func prettyOutputIndentsByTwoSpaces() {
    let expected = """
      {
        "name": "corp",
        "settings": {},
        "secret_settings": [],
        "accounts": 3,
        "list": [
          1,
          "two",
          {
            "x": null
          },
          [
            false
          ]
        ]
      }
      """
    #expect(JSON.serialize(Self.sample, pretty: true) == expected)
  }

  @Test func deepNestingIsIndentedAtEveryLevel() throws {
    // Deeper than the serializer's ready-made run of spaces (31 levels).
    var value: JSONValue = .number(JSONNumber(1))
    for _ in 0..<40 { value = .array([value]) }
    let lines =
      (0..<40).map { String(repeating: "  ", count: $0) + "[" } + [
        String(repeating: "  ", count: 40) + "1"
      ]
      + (0..<40).reversed().map { String(repeating: "  ", count: $0) + "]" }
    #expect(JSON.serialize(value, pretty: true) == lines.joined(separator: "\n"))
    #expect(try JSON.parse(JSON.serialize(value, pretty: true)) == value)
  }

  @Test func scalarsAndEmptyContainersStandAlone() {
    for pretty in [false, true] {
      #expect(JSON.serialize(.null, pretty: pretty) == "null")
      #expect(JSON.serialize(.bool(true), pretty: pretty) == "true")
      #expect(JSON.serialize(.number(JSONNumber(-5)), pretty: pretty) == "-5")
      #expect(JSON.serialize(.string("a/b"), pretty: pretty) == #""a/b""#, "'/' is not escaped")
      #expect(JSON.serialize(.array([]), pretty: pretty) == "[]")
      #expect(JSON.serialize(.object([:]), pretty: pretty) == "{}")
    }
  }

  @Test func keysKeepInsertionOrderAndReplacementKeepsPosition() {
    var object = JSONObject()
    object["z"] = .number(JSONNumber(1))
    object["a"] = .number(JSONNumber(2))
    object["m"] = .number(JSONNumber(3))
    object["z"] = .string("replaced")
    object["a"] = nil
    #expect(JSON.serialize(.object(object), pretty: false) == #"{"z":"replaced","m":3}"#)
  }

  @Test func stringsEscapeOnlyWhatTheyMust() {
    let cases: [(String, String)] = [
      ("quote \" backslash \\", #""quote \" backslash \\""#),
      ("\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#),
      ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
      ("\u{7F}", "\"\u{7F}\""),
      ("line\u{2028}paragraph\u{2029}", #""line\u2028paragraph\u2029""#),
      ("c1 \u{80}\u{9B}31m\u{9F} \u{A0}", #""c1 \u0080\u009b31m\u009f "# + "\u{A0}\""),
      ("é€😀 \u{10FFFF}", "\"é€😀 \u{10FFFF}\""),
      ("\u{2027}\u{202A}", "\"\u{2027}" + #"\u202a""#),
      ("a\u{202E}b\u{2066}c\u{2069}d\u{200F}", #""a\u202eb\u2066c\u2069d\u200f""#),
    ]
    for (string, expected) in cases {
      #expect(JSON.serialize(.string(string), pretty: false) == expected)
    }
  }

  @Test func keysAreEscapedLikeStrings() {
    let value: JSONValue = .object(["a\"b\n": .string("\u{1}")])
    #expect(JSON.serialize(value, pretty: false) == #"{"a\"b\n":"\u0001"}"#)
    #expect(JSON.serialize(value, pretty: true) == "{\n  \"a\\\"b\\n\": \"\\u0001\"\n}")
  }

  @Test func parsedDocumentsSerialiseBackAsWritten() throws {
    let compact = #"{"z":1.50,"a":[1E+2,-0,"\u00e9"],"e":{},"n":null}"#
    #expect(
      JSON.serialize(try JSON.parse(compact), pretty: false)
        == #"{"z":1.50,"a":[1E+2,-0,"é"],"e":{},"n":null}"#)
    let index = Fixtures.index(accounts: 3)
    #expect(JSON.serialize(try JSON.parse(index), pretty: true) + "\n" == index)
  }

  /// A string argument, shown escaped in test names.
  struct Sample: Sendable, CustomTestStringConvertible {
    let string: String
    var testDescription: String { string.debugDescription }
  }

  @Test(
    arguments: [
      "", "plain", "é€😀", "\u{0}", "\u{1}\u{1F}\u{7F}", "\u{2028}\u{2029}", "\"\\/",
      "\n\r\t\u{8}\u{C}",
      "\u{FFFF}\u{10FFFF}", "a\u{301}",
    ].map(Sample.init))
  func stringsRoundTrip(_ sample: Sample) throws {
    let string = sample.string
    for pretty in [false, true] {
      let text = JSON.serialize(.object([string: .array([.string(string)])]), pretty: pretty)
      let value = try JSON.parse(text)
      #expect(value == .object([string: .array([.string(string)])]))
      // Byte-exact, not only canonically equivalent.
      guard case .object(let object) = value, case .array(let elements)? = object[string],
        case .string(let parsed)? = elements.first
      else {
        Issue.record("wrong shape: \(text)")
        continue
      }
      #expect(Array(parsed.utf8) == Array(string.utf8))
      #expect(Array(object.keys[0].utf8) == Array(string.utf8))
    }
  }

  @Test func surrogatePairEscapesRoundTripAsRawUTF8() throws {
    let value = try JSON.parse(#"["\uD83D\uDE00", "\u0007", "\u2028"]"#)
    let text = JSON.serialize(value, pretty: false)
    #expect(text == "[\"😀\",\"\\u0007\",\"\\u2028\"]")
    #expect(try JSON.parse(text) == value)
  }

  @Test func theSampleRoundTrips() throws {
    #expect(try JSON.parse(JSON.serialize(Self.sample, pretty: true)) == Self.sample)
    #expect(try JSON.parse(JSON.serialize(Self.sample, pretty: false)) == Self.sample)
  }
}
