/// Lease ids: what `accounts lease --ttl` prints and `accounts release` takes.
public enum LeaseID {
  /// A new lease id: 16 characters of lowercase base32 (80 bits from `random`).
  public static func new(random: (Int) -> [UInt8]) -> String {
    let bytes = random(10)
    var bits: UInt64 = 0
    var pending = 0
    var text: [UInt8] = []
    for byte in bytes {
      bits = bits << 8 | UInt64(byte)
      pending += 8
      while pending >= 5 {
        pending -= 5
        text.append(alphabet[Int(bits >> UInt64(pending) & 31)])
      }
    }
    return String(decoding: text, as: UTF8.self)
  }

  static let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

  /// Whether `text` has the shape of a lease id (so `release` never looks for anything else).
  public static func isValid(_ text: String) -> Bool {
    text.utf8.count == 16 && text.utf8.allSatisfy(alphabet.contains)
  }
}
