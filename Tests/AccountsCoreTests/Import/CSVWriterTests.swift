import AccountsCore
import SecretMemory
import Testing

/// Fields as `export` writes them: quoted where RFC 4180 needs it, and where a reader that trims
/// unquoted fields (a spreadsheet, Python's `skipinitialspace`) would change a password.
@Suite struct CSVWriterTests {
  static func written(_ text: String) -> String {
    var bytes = Array(text.utf8)
    let secret = SecretBytes(consuming: &bytes)
    var buffer: [UInt8] = []
    CSVWriter.field(secret, into: &buffer)
    return String(decoding: buffer, as: UTF8.self)
  }

  @Test(arguments: [
    ("plain", "plain"), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("two\nlines", "\"two\nlines\""),
    ("cr\rlf", "\"cr\rlf\""), (" leading space", "\" leading space\""), ("\tleading tab", "\"\tleading tab\""),
    ("trailing space ", "\"trailing space \""), ("in side", "in side"),
  ])
  func aFieldIsQuotedWhereAReaderWouldChangeIt(text: String, expected: String) {
    #expect(CSVWriter.field(text) == expected)
    #expect(Self.written(text) == expected, "a secret is written as the same text")
  }
}

/// The spreadsheet-safe form of `export --spreadsheet-safe`.
@Suite struct CSVWriterSpreadsheetTests {
  @Test(arguments: [
    ("=1+1", "\"'=1+1\""), ("+44", "\"'+44\""), ("-2", "\"'-2\""), ("@SUM(A1)", "\"'@SUM(A1)\""),
    ("\tx", "\"'\tx\""), ("\rx", "\"'\rx\""), ("=\"a\"", "\"'=\"\"a\"\"\""), ("a=b", "a=b"), ("'=x", "'=x"), ("", ""),
  ])
  func aFieldASpreadsheetWouldRunGetsAQuoteInFront(text: String, expected: String) {
    #expect(CSVWriter.field(text, spreadsheetSafe: true) == expected)
    #expect(CSVWriter.startsLikeAFormula(text.utf8) == (expected != text && expected.hasPrefix("\"'")))
  }
}
