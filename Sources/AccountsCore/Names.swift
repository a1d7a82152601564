/// Rules for names a user types, checked when something is saved, so that every saved name can
/// be typed back, completed by a shell, and shown on one line.
public enum Names {
  /// A user name: 1–256 characters, no control characters or whitespace, not starting with `-`
  /// (it would read as an option). `@` is allowed: user names are often e-mail addresses.
  public static func checkUser(_ user: String) throws(CommandError) {
    guard !user.isEmpty else { throw .usage("the user name is empty") }
    guard user.unicodeScalars.count <= 256 else {
      throw .usage("the user name is longer than 256 characters")
    }
    guard !user.hasPrefix("-") else {
      throw .usage("user names cannot start with '-'", fix: "put `--` before it if it is not an option")
    }
    if let bad = user.unicodeScalars.first(where: { $0.properties.isWhitespace || isControl($0) }) {
      throw .usage("the user name '\(printable(user))' contains \(describe(bad))")
    }
  }

  /// A backend name: a letter or digit, then letters, digits, `.`, `_` or `-`; at most 64.
  public static func checkBackend(_ name: String) throws(CommandError) {
    guard isBackendName(name) else {
      throw .usage(
        "'\(printable(name))' is not a valid backend name",
        fix: "use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64)")
    }
  }

  public static func isBackendName(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard (1...64).contains(bytes.count), isAlphanumeric(bytes[0]) else { return false }
    return bytes.allSatisfy { isAlphanumeric($0) || $0 == 46 || $0 == 95 || $0 == 45 }
  }

  /// `name` with control characters made visible, safe to put in a one-line message.
  public static func printable(_ name: String, limit: Int = 80) -> String {
    var out = ""
    for scalar in name.unicodeScalars.prefix(limit) {
      if isControl(scalar) {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return name.unicodeScalars.count > limit ? out + "…" : out
  }

  private static func isAlphanumeric(_ byte: UInt8) -> Bool {
    (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
      || scalar.properties.generalCategory == .format
  }

  private static func describe(_ scalar: Unicode.Scalar) -> String {
    scalar == " " ? "a space" : "the character U+\(String(scalar.value, radix: 16, uppercase: true))"
  }
}
