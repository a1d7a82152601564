/// Error messages: one line each, naming what was found and, for the mistakes people make
/// when editing JSON by hand, what to do instead.
extension JSONParser {
  func tooDeep() -> JSONParseError {
    failure("nesting deeper than \(Self.maximumDepth) levels", at: index)
  }

  /// "expected a value, found X", with a hint for the mistakes people make in JSON by hand.
  func expectedValue() -> String {
    let problem = "expected a value, found \(found(at: index))"
    guard index < bytes.count else { return problem }
    switch bytes[index] {
    case UInt8(ascii: "'"): return problem + " (strings take double quotes)"
    case UInt8(ascii: "/"): return problem + " (comments are not allowed)"
    case ASCII.plus: return problem + " (a number cannot start with '+')"
    case ASCII.period: return problem + " (a number needs a digit before '.')"
    case UInt8(ascii: "N"), UInt8(ascii: "I"): return problem + " (NaN and Infinity are not JSON)"
    default: return problem
    }
  }

  /// The byte at `offset`, described for a message that must stay on one printable line.
  func found(at offset: Int) -> String {
    guard offset < bytes.count else { return "the end of the input" }
    let byte = bytes[offset]
    switch byte {
    case ASCII.space: return "a space"
    case UInt8(ascii: "'"): return "a single quote"
    case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
    case 0x80...: return "byte 0x\(Self.hex(byte))"
    default: return "control character U+00\(Self.hex(byte))"
    }
  }

  /// An error at `offset`; the line and column are worked out only now, off the fast path.
  func failure(_ problem: String, at offset: Int) -> JSONParseError {
    var line = 1
    var lineStart = 0
    for position in 0..<min(offset, bytes.count) where bytes[position] == ASCII.lineFeed {
      line += 1
      lineStart = position + 1
    }
    return JSONParseError(line: line, column: offset - lineStart + 1, problem: problem)
  }

  /// Two uppercase hex digits.
  static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
  }

  /// `text` with control characters shown as escapes, so that an error message stays one line.
  static func printable(_ text: String) -> String {
    JSON.escaped(text)
  }
}
