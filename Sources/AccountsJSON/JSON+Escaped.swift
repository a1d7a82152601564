extension JSON {
  /// `text` as a JSON string spells it, without the quotes: how an error message quotes a key
  /// or value of a document, so that the user finds it in the file as they wrote it (`co\nrp`,
  /// `ba\u001bse`), on one line that no terminal acts on. Besides what `serialize` escapes
  /// (`"`, `\`, control characters), every character a terminal would act on or not show (DEL,
  /// C1 controls, format characters such as bidi overrides, line and paragraph separators,
  /// characters that render as nothing) is written `\uXXXX`. Other text stays as it is.
  public static func escaped(_ text: String) -> String {
    // Most keys and values are printable ASCII without quotes or backslashes: as they are.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) { return text }
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{8}": out += "\\b"
      case "\u{C}": out += "\\f"
      default:
        if isHidden(scalar) {
          for unit in String(scalar).utf16 { out += "\\u" + hex4(unit) }
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }

  /// Characters a terminal acts on or shows as nothing.
  private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return true }
    if scalar.isASCII { return false }
    if scalar.properties.isDefaultIgnorableCodePoint { return true }
    switch scalar.properties.generalCategory {
    case .format, .lineSeparator, .paragraphSeparator, .control: return true
    default: return false
    }
  }

  /// Four lowercase hex digits, as `serialize` writes them.
  private static func hex4(_ unit: UInt16) -> String {
    let digits = String(unit, radix: 16)
    return String(repeating: "0", count: 4 - digits.count) + digits
  }
}
