/// Text that reaches a terminal.
public enum TerminalText {
  /// The one sanitiser for text that reaches a terminal: `text` with every character a
  /// terminal or a bidi algorithm would act on (C0 and C1 controls, DEL, Unicode format
  /// characters, line and paragraph separators) written as `\u{…}`, and cut at `limit`
  /// characters. Every field a command prints for people goes through it.
  public static func printable(_ text: String, limit: Int = 80) -> String {
    // Most fields are short printable ASCII: those come back as they are, without a copy
    // (`list` prints thousands of them).
    var plain = 0
    for byte in text.utf8 {
      guard byte >= 0x20, byte < 0x7F else { plain = -1; break }
      plain += 1
    }
    if plain >= 0, plain <= limit { return text }
    var out = ""
    var count = 0
    for scalar in text.unicodeScalars {
      if count == limit { return out + "…" }
      count += 1
      if isUnsafe(scalar) {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// True for the characters `printable` escapes.
  public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.value < 0x7F { return scalar.value < 0x20 }
    if scalar.value <= 0x9F { return true }
    // Characters that render as nothing (variation selectors, Hangul fillers, ...) hide
    // what is there just as format characters do.
    if scalar.properties.isDefaultIgnorableCodePoint { return true }
    switch scalar.properties.generalCategory {
    case .format, .lineSeparator, .paragraphSeparator, .control: return true
    default: return false
    }
  }
}

/// "1 account", "3 accounts": a count with its noun, for messages.
public func counted(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}
