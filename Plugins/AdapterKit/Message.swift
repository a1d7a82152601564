import SecretMemory

/// Text for the one-line messages an adapter returns.
///
/// Messages end up on the user's terminal, and parts of them come from a backend or a config
/// file that may be hostile or broken: control characters (a newline, an escape sequence) are
/// replaced and the length is capped, so a reply cannot forge output or flood the screen.
public enum Message {
  /// The most characters of foreign text a message quotes.
  public static let foreignTextLimit = 300

  /// `text` on one line: control characters become spaces, surrounding spaces go, and anything
  /// past `limit` characters becomes "…".
  public static func oneLine(_ text: String, limit: Int = foreignTextLimit) -> String {
    var result = ""
    var count = 0
    for scalar in text.unicodeScalars {
      if count == limit {
        result += "…"
        break
      }
      result.unicodeScalars.append(isControl(scalar) ? " " : scalar)
      count += 1
    }
    return trimmingSpaces(result)
  }

  /// The start of a reply `body` for a message that says what came: UTF-8 (invalid bytes
  /// replaced), every occurrence of `secrets` cut out (a server may echo a request back), runs
  /// of white space and control characters as one space, at most `limit` characters.
  public static func excerpt(
    _ body: [UInt8], limit: Int = 80, redacting secrets: [SecretBytes] = []
  ) -> String {
    // Only the start is shown: 4 bytes a character at the most, and room for a secret that
    // straddles the cut. Blanks and control bytes collapse to one space or none, so the cut
    // counts the other bytes: a run of blanks cannot push a secret past the window unredacted.
    let longestSecret = secrets.map(\.count).max() ?? 0
    var counted = 0
    var end = body.startIndex
    while end < body.endIndex, counted < 4 * (limit + 1) {
      if body[end] > 0x20, body[end] != 0x7F { counted += 1 }
      end += 1
    }
    var bytes = Array(body[body.startIndex..<min(body.endIndex, end + longestSecret)])
    for secret in secrets where !secret.isEmpty {
      bytes = secret.withUnsafeBytes { redacting($0, in: bytes) }
    }
    var collapsed = ""
    for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
      let blank = scalar == " " || isControl(scalar)
      if blank && (collapsed.unicodeScalars.last == " " || collapsed.isEmpty) { continue }
      collapsed.unicodeScalars.append(blank ? " " : scalar)
    }
    return oneLine(collapsed, limit: limit)
  }

  /// `bytes` with every occurrence of `secret` replaced by "…".
  private static func redacting(_ secret: UnsafeRawBufferPointer, in bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    var index = 0
    while index < bytes.count {
      if bytes.count - index >= secret.count,
        bytes[index..<index + secret.count].elementsEqual(secret)
      {
        result += Array("…".utf8)
        index += secret.count
      } else {
        result.append(bytes[index])
        index += 1
      }
    }
    return result
  }

  /// `text` in double quotes, with control characters, quotes and backslashes escaped, capped
  /// at `limit` characters: for naming a bad value.
  public static func quoted(_ text: String, limit: Int = foreignTextLimit) -> String {
    var result = "\""
    var count = 0
    for scalar in text.unicodeScalars {
      if count == limit {
        result += "…"
        break
      }
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case "\r": result += "\\r"
      default:
        if isControl(scalar) {
          result += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
      count += 1
    }
    return result + "\""
  }

  /// C0 and C1 controls, DEL, and the line and paragraph separators.
  static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F..<0xA0, 0x2028, 0x2029: true
    default: false
    }
  }

  private static func trimmingSpaces(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { $0 != " " }),
      let last = scalars.lastIndex(where: { $0 != " " })
    else { return "" }
    return String(scalars[first...last])
  }
}
