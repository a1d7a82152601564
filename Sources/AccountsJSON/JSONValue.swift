/// A JSON value (RFC 8259).
///
/// Equality is structural and exact: objects compare their members in order (see `JSONObject`)
/// and numbers compare their text (see `JSONNumber`), so two values are equal exactly when
/// `JSON.serialize` writes them identically.
public enum JSONValue: Equatable, Sendable {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)
}

extension JSONValue {
  /// What the value is, with its article, for messages: "a string", "an object", "null".
  public var kindDescription: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}

/// A JSON number, kept as the text it was parsed from or produced as.
///
/// The text is kept rather than converted because the tool only ever needs integers, and a
/// conversion to `Double` would silently change numbers it merely carries (`1e400`, large ids,
/// `0.1`). Equality compares the text: `1`, `1.0` and `1e0` are different numbers here, which
/// keeps equal values serialising identically.
public struct JSONNumber: Equatable, Sendable, CustomStringConvertible {
  /// The number as written in JSON, e.g. `-12`, `0.5`, `6.02e23`.
  public let text: String

  /// Wraps text the parser has already checked against the number grammar.
  init(validatedText text: String) {
    self.text = text
  }

  /// The number `value`, written in decimal.
  public init(_ value: Int64) {
    text = String(value)
  }

  /// The number `value`, written in decimal.
  public init(_ value: Int) {
    text = String(value)
  }

  /// The number written as `text`, or nil when `text` is not exactly one JSON number (no
  /// surrounding whitespace, no `+`, no leading zeros, no `NaN`).
  public init?(text: String) {
    guard case .number(let number)? = try? JSON.parse(text), number.text == text else {
      return nil
    }
    self = number
  }

  /// The number as an `Int64`, or nil unless the text is an integer (no fraction, no exponent)
  /// that fits. `1.0` and `1e3` are nil on purpose: callers reading counts and versions should
  /// see a file that says `1e3` as malformed rather than guess.
  public var int64: Int64? {
    for byte in text.utf8 where byte != UInt8(ascii: "-") && !(0x30...0x39).contains(byte) {
      return nil
    }
    return Int64(text)
  }

  public var description: String { text }
}
