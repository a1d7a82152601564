import TestSupport
import AccountsJSON
import Testing

/// The error `JSON.parse` throws for `bytes`, or nil when it parses them.
func parseError(_ bytes: [UInt8]) -> JSONParseError? {
  do {
    _ = try JSON.parse(bytes)
    return nil
  } catch {
    return error
  }
}

/// The error `JSON.parse` throws for `text`, or nil when it parses it.
func parseError(_ text: String) -> JSONParseError? {
  parseError(Array(text.utf8))
}

/// The error a reader's accessor throws, or nil when it returns. (Closures infer an untyped
/// `throws`, so the type is checked here.)
func shapeError<Result>(_ read: () throws -> Result) -> JSONShapeError? {
  do {
    _ = try read()
    return nil
  } catch let error as JSONShapeError {
    return error
  } catch {
    Issue.record("not a JSONShapeError: \(error)")
    return nil
  }
}

/// A document that must be rejected, with where and why.
struct Rejection: Sendable, CustomTestStringConvertible {
  let bytes: [UInt8]
  let line: Int
  let column: Int
  let problem: String

  init(_ text: String, _ line: Int, _ column: Int, _ problem: String) {
    self.init(bytes: Array(text.utf8), line, column, problem)
  }

  init(bytes: [UInt8], _ line: Int, _ column: Int, _ problem: String) {
    self.bytes = bytes
    self.line = line
    self.column = column
    self.problem = problem
  }

  var expected: JSONParseError { JSONParseError(line: line, column: column, problem: problem) }

  var testDescription: String {
    // Printable ASCII as is, every other byte as \xNN: some inputs are not UTF-8 at all.
    bytes.prefix(40).map { byte in
      (0x20...0x7E).contains(byte)
        ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
    }.joined()
  }
}

/// The JSON tests' name for the shared generator.
typealias SeededGenerator = SplitMix
