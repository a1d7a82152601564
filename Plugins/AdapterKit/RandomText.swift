/// Random text of [0-9A-Za-z] from the host's random bytes: the signed adapter's `rand`.
public enum RandomText {
  /// The alphabet, in the order bytes map onto it.
  public static let alphabet = Array(
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

  /// The largest multiple of 62 that fits in a byte: bytes from here on are discarded so that
  /// every character is equally likely (rejection sampling).
  public static let rejectionThreshold: UInt8 = 248

  /// The characters `bytes` yield, in order: each byte below 248 gives `alphabet[byte % 62]`,
  /// the others give nothing.
  public static func characters(from bytes: [UInt8]) -> [UInt8] {
    bytes.compactMap { byte in
      byte < rejectionThreshold ? alphabet[Int(byte) % alphabet.count] : nil
    }
  }

  /// `count` random characters, drawing bytes from `host` until enough were accepted.
  ///
  /// A fair source rejects 8 bytes in 256, so 64 draws that all come back rejected mean the
  /// host's randomness is broken; say so rather than loop.
  public static func make(count: Int, host: any HostServices) throws(AdapterError) -> String {
    var result: [UInt8] = []
    result.reserveCapacity(count)
    var draws = 0
    while result.count < count {
      guard draws < 64 else {
        throw AdapterError("the host's random bytes are not random (all rejected)")
      }
      draws += 1
      let bytes = try host.randomBytes(count: count - result.count)
      result += characters(from: Array(bytes.prefix(count - result.count)))
    }
    return String(decoding: result, as: UTF8.self)
  }
}
