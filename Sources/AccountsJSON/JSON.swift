/// A strict JSON reader and writer without Foundation.
///
/// `accounts list` and shell completion must start in a few milliseconds, and loading
/// Foundation (even FoundationEssentials) costs more than the whole command; see bench/list.
public enum JSON {
  /// Parses one JSON text (RFC 8259) from UTF-8 bytes.
  ///
  /// Strict on purpose, since the files are also edited by hand and a mistake should be named
  /// rather than guessed at: no comments, trailing commas, single quotes, `NaN`, leading zeros,
  /// byte order mark, invalid UTF-8, unpaired surrogate escapes or duplicate keys. Containers
  /// may nest at most 512 deep; deeper input is an error, never a stack overflow (the parser
  /// keeps its own stack).
  public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
    try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
      var parser = JSONParser(bytes: buffer)
      return try parser.parseDocument()
    }
  }

  /// Parses one JSON text from a string (see `parse(_:)` for bytes).
  public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    try parse(Array(text.utf8))
  }

  /// Writes `value` as JSON text.
  ///
  /// Compact output has no whitespace at all: `{"a":1,"b":[true,null]}`. Pretty output puts
  /// each member and element on its own line, indented by two spaces, with `"key": value`,
  /// and writes empty containers as `{}` and `[]`; it does not end with a newline. Keys keep
  /// their order. Strings escape only `"`, `\`, control characters and U+2028/U+2029.
  public static func serialize(_ value: JSONValue, pretty: Bool) -> String {
    var serializer = JSONSerializer(pretty: pretty)
    serializer.write(value, depth: 0)
    return serializer.text
  }
}

/// Why a JSON text could not be parsed, and where.
///
/// `line` and `column` are 1-based; lines are counted by LF, and `column` counts bytes from the
/// start of the line (a byte is what the parser sees, and stays exact even in invalid UTF-8).
/// The position is the offending byte: the byte that cannot continue the document, the stray
/// comma, the leading zero, or the start of an invalid escape, UTF-8 sequence, duplicate key or
/// too-deep container.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
  public let line: Int
  public let column: Int
  /// What is wrong, in words, e.g. "expected ',' or '}' after an object member".
  public let problem: String

  public init(line: Int, column: Int, problem: String) {
    self.line = line
    self.column = column
    self.problem = problem
  }

  /// "line L, column C: PROBLEM", on one line.
  public var description: String { "line \(line), column \(column): \(problem)" }
}

/// A parsed document that does not have the shape its reader expects, and where.
public struct JSONShapeError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The path of the offending value, e.g. "accounts[1].remembered"; empty for the root.
  public let path: String
  /// What is wrong, e.g. "expected a boolean, found a string" or "missing".
  public let problem: String

  public init(path: String, problem: String) {
    self.path = path
    self.problem = problem
  }

  /// "PATH: PROBLEM", or just the problem at the root.
  public var description: String { path.isEmpty ? problem : "\(path): \(problem)" }
}
