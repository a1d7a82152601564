/// FNV-1a (64 bits) of a name's UTF-8: the one short, fixed-length, stable stand-in for text that
/// may hold anything (a slash, a newline, a thousand characters), where a name must become a
/// file name, a byte offset or a key. Not a secret and not a defence: whatever it names is
/// checked against the name kept inside.
public enum NameHash {
  public static func value(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return hash
  }

  /// The hash in 16 lowercase hexadecimal digits.
  public static func hexadecimal(_ text: String) -> String {
    let digits = String(value(text), radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
