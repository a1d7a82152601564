import AccountsJSON
import Testing

/// What the parser refuses, and the one-line error that says where (line, column) and why.
@Suite struct JSONParserDiagnosticsTests {
  static let grammar: [Rejection] = [
    Rejection("", 1, 1, "empty input"),
    Rejection("  \n ", 2, 2, "expected a value, found the end of the input"),
    Rejection("[", 1, 2, "expected a value, found the end of the input"),
    Rejection("{", 1, 2, "expected a string key, found the end of the input"),
    Rejection(#"{"a":1"#, 1, 7, "expected ',' or '}' after an object member"),
    Rejection("[1 2]", 1, 4, "expected ',' or ']' after an array element"),
    Rejection(#"{"a" 1}"#, 1, 6, "expected ':' after an object key, found '1'"),
    Rejection("{a:1}", 1, 2, "expected a string key, found 'a' (keys must be quoted)"),
    Rejection("{,}", 1, 2, "expected a string key, found ','"),
    Rejection("[,1]", 1, 2, "expected a value, found ','"),
    Rejection("[1,2,]", 1, 5, "trailing comma before ']'"),
    Rejection(#"{"a":1,}"#, 1, 7, "trailing comma before '}'"),
    Rejection("[1,\n  ]", 1, 3, "trailing comma before ']'"),
    Rejection("// note\n{}", 1, 1, "expected a value, found '/' (comments are not allowed)"),
    Rejection(#"{"a": 1 /* note */}"#, 1, 9, "expected ',' or '}' after an object member"),
    Rejection("{/* note */}", 1, 2, "expected a string key, found '/' (comments are not allowed)"),
    Rejection("['a']", 1, 2, "expected a value, found a single quote (strings take double quotes)"),
    Rejection(
      "{'a': 1}", 1, 2, "expected a string key, found a single quote (keys take double quotes)"),
    Rejection("01", 1, 1, "a number cannot have a leading zero"),
    Rejection("[-01]", 1, 3, "a number cannot have a leading zero"),
    Rejection("+1", 1, 1, "expected a value, found '+' (a number cannot start with '+')"),
    Rejection(".5", 1, 1, "expected a value, found '.' (a number needs a digit before '.')"),
    Rejection("1.", 1, 3, "expected a digit after '.', found the end of the input"),
    Rejection("[1.]", 1, 4, "expected a digit after '.', found ']'"),
    Rejection("1e", 1, 3, "expected a digit in the exponent, found the end of the input"),
    Rejection("1E+", 1, 4, "expected a digit in the exponent, found the end of the input"),
    Rejection("-", 1, 2, "expected a digit after '-', found the end of the input"),
    Rejection("NaN", 1, 1, "expected a value, found 'N' (NaN and Infinity are not JSON)"),
    Rejection("[Infinity]", 1, 2, "expected a value, found 'I' (NaN and Infinity are not JSON)"),
    Rejection("-Infinity", 1, 2, "expected a digit after '-', found 'I'"),
    Rejection("tru", 1, 4, "expected 'true', found the end of the input"),
    Rejection("nulL", 1, 4, "expected 'null', found 'L'"),
    Rejection("True", 1, 1, "expected a value, found 'T'"),
    Rejection("[tru e]", 1, 5, "expected 'true', found a space"),
    Rejection("{} x", 1, 4, "unexpected 'x' after the JSON value"),
    Rejection("1 2", 1, 3, "unexpected '2' after the JSON value"),
    Rejection("[]]", 1, 3, "unexpected ']' after the JSON value"),
    Rejection("truex", 1, 5, "unexpected 'x' after the JSON value"),
    Rejection("[\u{0}]", 1, 2, "expected a value, found control character U+0000"),
    Rejection("\u{C}1", 1, 1, "expected a value, found control character U+000C"),
    Rejection("\u{A0}1", 1, 1, "expected a value, found byte 0xC2"),
  ]

  static let strings: [Rejection] = [
    Rejection(#""abc"#, 1, 1, "unterminated string"),
    Rejection(#"["a\"]"#, 1, 2, "unterminated string"),
    Rejection(
      "\"a\nb\"", 1, 3,
      #"unescaped control character U+000A in a string (write it as \n; is a closing '"' missing?)"#
    ),
    Rejection("\"\t\"", 1, 2, #"unescaped control character U+0009 in a string (write it as \t)"#),
    Rejection(
      "\"\\n\u{1F}\"", 1, 4, #"unescaped control character U+001F in a string (write it as \u001F)"#
    ),
    Rejection(#""\x""#, 1, 2, #"invalid escape: '\' followed by 'x'"#),
    Rejection(#""\'""#, 1, 2, #"invalid escape: '\' followed by a single quote"#),
    Rejection("\"\\", 1, 2, #"expected an escape after '\', found the end of the input"#),
    Rejection(#""\u12G4""#, 1, 2, #"invalid \u escape: expected four hexadecimal digits"#),
    Rejection(#""\u12""#, 1, 2, #"invalid \u escape: expected four hexadecimal digits"#),
    Rejection(#""\uD83D""#, 1, 2, #"unpaired UTF-16 high surrogate \uD83D"#),
    Rejection(#""\ud83dx""#, 1, 2, #"unpaired UTF-16 high surrogate \ud83d"#),
    Rejection(#""ab\uDE00""#, 1, 4, #"unpaired UTF-16 low surrogate \uDE00"#),
    Rejection(
      #""\uD83D\u0041""#, 1, 2,
      #"UTF-16 high surrogate \uD83D is followed by \u0041, not by a low surrogate"#),
    Rejection(
      #""\uD83D\uD83D""#, 1, 2,
      #"UTF-16 high surrogate \uD83D is followed by \uD83D, not by a low surrogate"#),
    Rejection(#""\uD83D\uDE0""#, 1, 8, #"invalid \u escape: expected four hexadecimal digits"#),
  ]

  static let encodings: [Rejection] = [
    Rejection(
      bytes: [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], 1, 1,
      "the input starts with a UTF-8 byte order mark, which JSON forbids"),
    Rejection(bytes: [0x22, 0xC0, 0x80, 0x22], 1, 2, "invalid UTF-8: overlong encoding"),
    Rejection(bytes: [0x22, 0xC1, 0xBF, 0x22], 1, 2, "invalid UTF-8: overlong encoding"),
    Rejection(bytes: [0x22, 0xE0, 0x9F, 0xBF, 0x22], 1, 2, "invalid UTF-8: overlong encoding"),
    Rejection(
      bytes: [0x22, 0xF0, 0x8F, 0xBF, 0xBF, 0x22], 1, 2, "invalid UTF-8: overlong encoding"),
    Rejection(
      bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], 1, 2, "invalid UTF-8: encoded UTF-16 surrogate"),
    Rejection(
      bytes: [0x22, 0xED, 0xBF, 0xBF, 0x22], 1, 2, "invalid UTF-8: encoded UTF-16 surrogate"),
    Rejection(
      bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, 2, "invalid UTF-8: code point above U+10FFFF"),
    Rejection(
      bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1, 2, "invalid UTF-8: code point above U+10FFFF"),
    Rejection(bytes: [0x22, 0xFF, 0x22], 1, 2, "invalid UTF-8: byte 0xFF"),
    Rejection(bytes: [0x22, 0x80, 0x22], 1, 2, "invalid UTF-8: unexpected continuation byte"),
    Rejection(bytes: [0x22, 0x61, 0xE2, 0x82, 0x22], 1, 3, "invalid UTF-8: truncated sequence"),
    Rejection(bytes: [0x22, 0xF0, 0x9F, 0x98], 1, 2, "invalid UTF-8: truncated sequence"),
    Rejection(bytes: [0x22, 0x5C, 0x6E, 0xC3, 0x22], 1, 4, "invalid UTF-8: truncated sequence"),
    Rejection(bytes: [0x5B, 0xFF, 0x5D], 1, 2, "expected a value, found byte 0xFF"),
  ]

  @Test(arguments: grammar)
  func grammarMistakesAreNamedWithTheirPosition(_ rejection: Rejection) {
    #expect(parseError(rejection.bytes) == rejection.expected)
  }

  @Test(arguments: strings)
  func stringMistakesAreNamedWithTheirPosition(_ rejection: Rejection) {
    #expect(parseError(rejection.bytes) == rejection.expected)
  }

  @Test(arguments: encodings)
  func encodingMistakesAreNamedWithTheirPosition(_ rejection: Rejection) {
    #expect(parseError(rejection.bytes) == rejection.expected)
  }

  @Test func linesCountLineFeedsAndColumnsCountBytes() {
    let index =
      "{\n  \"version\": 1,\n  \"accounts\": [\n    {\"user\": \"a\" \"backend\": \"b\"}\n  ]\n}\n"
    let error = parseError(index)
    #expect(
      error
        == JSONParseError(
          line: 4, column: 18, problem: "expected ',' or '}' after an object member"))
    #expect(error?.description == "line 4, column 18: expected ',' or '}' after an object member")
    // CR LF: the CR is whitespace on the line it ends.
    #expect(
      parseError("[\r\n1,\r\n]")
        == JSONParseError(line: 2, column: 2, problem: "trailing comma before ']'"))
    // "é" is two bytes, so 'x' is the eighth byte of the line.
    #expect(
      parseError("[\"é\", x]")
        == JSONParseError(line: 1, column: 8, problem: "expected a value, found 'x'"))
  }

  @Test func duplicateKeysAreRejectedAtTheSecondKey() {
    #expect(
      parseError(#"{"a":1,"a":2}"#)
        == JSONParseError(line: 1, column: 8, problem: #"duplicate key "a""#))
    #expect(
      parseError("{\"outer\": {\"x\": 1},\n \"inner\": {\"x\": 1, \"x\": 2}}")
        == JSONParseError(line: 2, column: 20, problem: #"duplicate key "x""#))
    // An escaped spelling of the same key is the same key.
    #expect(parseError(#"{"ab":1,"a\u0062":2}"#)?.problem == #"duplicate key "ab""#)
    // Control characters in a key stay escaped in the one-line message.
    #expect(parseError(#"{"a\nb":1,"a\nb":2}"#)?.problem == #"duplicate key "a\nb""#)
  }

  @Test func duplicateKeysAreFoundInLargeObjects() {
    let members = (0..<100).map { "\"key\($0)\": \($0)" }
    let document = "{" + members.joined(separator: ", ") + ", \"key42\": 0}"
    #expect(parseError(document)?.problem == #"duplicate key "key42""#)
    #expect(parseError("{" + members.joined(separator: ", ") + "}") == nil)
  }

  @Test func canonicallyEquivalentKeysAreDuplicates() {
    // Swift compares strings by canonical equivalence, as the tool's dictionaries do.
    #expect(parseError(#"{"\u00e9": 1, "e\u0301": 2}"#)?.problem == "duplicate key \"e\u{301}\"")
  }

  @Test func nestingIsLimitedTo512Levels() throws {
    let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(parseError(deepest) == nil)
    let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
    #expect(
      parseError(tooDeep)
        == JSONParseError(line: 1, column: 513, problem: "nesting deeper than 512 levels"))
    let objects =
      String(repeating: #"{"a":"#, count: 513) + "1" + String(repeating: "}", count: 513)
    #expect(
      parseError(objects)
        == JSONParseError(line: 1, column: 2561, problem: "nesting deeper than 512 levels"))
  }

  @Test func hostileNestingIsAnErrorNotACrash() {
    #expect(
      parseError(String(repeating: "[", count: 100_000))?.problem
        == "nesting deeper than 512 levels")
    #expect(
      parseError(String(repeating: #"{"":"#, count: 100_000))?.problem
        == "nesting deeper than 512 levels")
    #expect(
      parseError(String(repeating: "[1,", count: 100_000))?.problem
        == "nesting deeper than 512 levels")
  }

  @Test func messagesStayOnOneLine() {
    for rejection in Self.grammar + Self.strings + Self.encodings {
      let description = parseError(rejection.bytes)?.description ?? "\n"
      #expect(
        !description.contains("\n") && !description.contains("\r"), "\(rejection.testDescription)")
    }
  }
}
