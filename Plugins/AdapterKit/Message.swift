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
