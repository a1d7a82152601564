import AccountsSystem

/// Rules for the names accounts saves, checked when a name is saved *and* when a file is read,
/// so that every saved name can be typed back, completed by a shell, and shown on one line.
///
/// A user name holds letters and digits of any script and `. _ - @ +`: nothing a shell
/// interprets (no `$`, backquote, quotes, spaces, `;`, `|`, `*`, ...), nothing a terminal
/// interprets (no control characters), and nothing that hides or reorders text (no Unicode
/// format characters such as bidi overrides or zero-width spaces). Those are the names of QA
/// accounts, e-mail addresses, phone numbers and Chinese names; like gh and kubectx, accounts
/// refuses the rest instead of quoting it everywhere.
public enum Names {
  /// What a user name may hold, for messages and the man page.
  public static let userRule =
    "letters and digits of any script and . _ - @ +, at most 256, not starting with '-'"

  /// Why `user` is not a valid user name, or nil when it is.
  public static func userProblem(_ user: String) -> String? {
    // The common case, checked byte by byte: ASCII letters, digits and . _ - @ +.
    var plain = true
    var count = 0
    for byte in user.utf8 {
      count += 1
      guard byte < 0x80, isAlphanumeric(byte) || isUserPunctuation(byte) else {
        plain = false
        break
      }
    }
    if plain, count > 0, count <= 256, user.utf8.first != 0x2D { return nil }
    guard !user.isEmpty else { return "the user name is empty" }
    guard user.unicodeScalars.count <= 256 else { return "the user name is longer than 256 characters" }
    guard !user.hasPrefix("-") else { return "user names cannot start with '-'" }
    if let bad = user.unicodeScalars.first(where: { !isUserScalar($0) }) {
      return "the user name '\(printable(user))' contains \(describe(bad))"
    }
    return nil
  }

  public static func isValidUser(_ user: String) -> Bool { userProblem(user) == nil }

  /// Throws the usage error for a user name a person typed.
  public static func checkUser(_ user: String) throws(CommandError) {
    guard let problem = userProblem(user) else { return }
    if user.hasPrefix("-") {
      throw .usage(problem, fix: "put `--` before it if it is not an option")
    }
    throw .usage(problem, fix: "user names may hold \(userRule)")
  }

  /// A backend name: a letter or digit, then letters, digits, `.`, `_` or `-`; at most 64.
  public static func checkBackend(_ name: String) throws(CommandError) {
    guard isBackendName(name) else {
      throw .usage(
        "'\(printable(name))' is not a valid backend name",
        fix: "use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64)")
    }
  }

  /// Backend and adapter names: ASCII letters and digits, then also `.`, `_` and `-`; 1–64.
  public static func isBackendName(_ name: String) -> Bool {
    var count = 0
    for byte in name.utf8 {
      guard count == 0 ? isAlphanumeric(byte) : isAlphanumeric(byte) || byte == 46 || byte == 95 || byte == 45 else {
        return false
      }
      count += 1
      if count > 64 { return false }
    }
    return count > 0
  }

  /// The one sanitiser for text that reaches a terminal (`TerminalText.printable`).
  public static func printable(_ text: String, limit: Int = 80) -> String { TerminalText.printable(text, limit: limit) }

  /// True for the characters `printable` escapes.
  public static func isUnsafeForTerminal(_ scalar: Unicode.Scalar) -> Bool { TerminalText.isUnsafe(scalar) }

  private static func isUserScalar(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII {
      let byte = UInt8(scalar.value)
      return isUserPunctuation(byte) || isAlphanumeric(byte)
    }
    // Letters and marks that render as nothing (U+3164 HANGUL FILLER, variation selectors):
    // "bob" and "bob" + one of them would look alike.
    if scalar.properties.isDefaultIgnorableCodePoint { return false }
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
      .nonspacingMark, .spacingMark, .enclosingMark,
      .decimalNumber, .letterNumber, .otherNumber:
      return true
    default:
      return false
    }
  }

  /// . _ - @ + (see `userRule`)
  private static func isUserPunctuation(_ byte: UInt8) -> Bool {
    byte == 0x2E || byte == 0x5F || byte == 0x2D || byte == 0x40 || byte == 0x2B
  }

  private static func isAlphanumeric(_ byte: UInt8) -> Bool {
    (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
  }

  private static func describe(_ scalar: Unicode.Scalar) -> String {
    switch scalar {
    case " ": "a space"
    case _ where TerminalText.isUnsafe(scalar) || scalar.properties.isWhitespace:
      "the invisible character U+\(hex(scalar))"
    default: "'\(Character(scalar))' (U+\(hex(scalar)))"
    }
  }

  private static func hex(_ scalar: Unicode.Scalar) -> String {
    let digits = String(scalar.value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
