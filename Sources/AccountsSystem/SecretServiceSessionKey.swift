import SecretMemory

/// One side of a `dh-ietf1024-sha256-aes128-cbc-pkcs7` session of the Secret Service (the
/// freedesktop specification's "Transfer of Secrets", as libsecret and secret-tool open it):
/// Diffie-Hellman in the 1024-bit MODP group of RFC 2409 section 6.2 with generator 2, the
/// shared value left-padded to 128 bytes, HKDF-SHA256 with empty salt and info to a 16-byte
/// AES key, each secret in AES-128-CBC with PKCS#7 padding. Every primitive is libgcrypt's
/// (`Cryptography`), as it is libsecret's.
///
/// The private exponent lives in a `SecretBytes`, which wipes it when the key is released.
public struct SecretServiceSessionKey: Sendable {
  /// The algorithm name to pass to `OpenSession`.
  public static let algorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

  /// RFC 2409's "Second Oakley Group" prime, 2^1024 - 2^960 - 1 + 2^64 * (floor(2^894 pi) + 129093),
  /// big-endian as the RFC prints it.
  static let prime: [UInt8] = [
    "FFFFFFFF FFFFFFFF C90FDAA2 2168C234 C4C6628B 80DC1CD1 29024E08 8A67CC74 020BBEA6 3B139B22 514A0879 8E3404DD",
    "EF9519B3 CD3A431B 302B0A6D F25F1437 4FE1356D 6D51C245 E485B576 625E7EC6 F44C42E9 A637ED6B 0BFF5CB6 F406B7ED",
    "EE386BFB 5A899FA5 AE9F2411 7C4B1FE6 49286651 ECE65381 FFFFFFFF FFFFFFFF",
  ].joined(separator: " ").split(separator: " ").flatMap { word in
    stride(from: 0, to: word.count, by: 2).map { offset in
      let start = word.index(word.startIndex, offsetBy: offset)
      return UInt8(word[start..<word.index(start, offsetBy: 2)], radix: 16)!
    }
  }

  /// 256 random bits, far more than the group's strength (about 80 bits) calls for.
  static let privateExponentByteCount = 32

  private let privateExponent: SecretBytes

  /// Our public value `2^x mod p`, big-endian, always 128 bytes (leading zeros kept): the input
  /// of `OpenSession` (a variant holding `ay`). gnome-keyring and KeePassXC read any length;
  /// kwalletd refuses anything but 128 bytes.
  public let publicKey: [UInt8]

  /// A fresh private exponent from the kernel's random pool; nil when libgcrypt cannot be
  /// loaded (the caller takes the libsecret path, which says so).
  public init?() {
    var exponent = [UInt8](repeating: 0, count: Self.privateExponentByteCount)
    exponent.withUnsafeMutableBytes { fillRandom($0) }
    // The top bit set makes x >= 2^255: never 0 or 1, and every exponent the same length.
    exponent[0] |= 0x80
    self.init(privateExponent: &exponent)
  }

  /// A key with a chosen exponent (big-endian, 1 to 128 bytes, at least 2), which is wiped from
  /// the caller's array: for tests against published or computed values.
  init?(privateExponent exponent: inout [UInt8]) {
    let secret = SecretBytes(consuming: &exponent)
    guard let publicValue = try? secret.withUnsafeBytes({ x throws(Cryptography.Unavailable) in
      try Cryptography.power([2], exponent: x, modulus: Self.prime)
    }) else { return nil }
    publicKey = publicValue
    privateExponent = secret
  }

  /// The cipher agreed with the service's public value (big-endian, 1 to 128 bytes, leading
  /// zeros allowed); nil unless 1 < Y < p - 1, which refuses the values that would force the
  /// shared secret to 1 or p - 1.
  public func agree(withServicePublicKey servicePublicKey: [UInt8]) -> SecretSessionCipher? {
    guard let peer = Self.inRange(servicePublicKey) else { return nil }
    // Left-padded to the prime's 128 bytes, as libsecret's and gnome-keyring's egg_dh_gen_secret
    // do: dropping a leading zero byte would derive another key about one session in 256.
    guard
      var shared = try? privateExponent.withUnsafeBytes({ x throws(Cryptography.Unavailable) in
        try Cryptography.power(peer, exponent: x, modulus: Self.prime)
      })
    else { return nil }
    defer { wipe(&shared) }
    guard var key = try? Cryptography.hkdfSHA256(inputKeyMaterial: shared, outputByteCount: SecretSessionCipher.keyByteCount)
    else { return nil }
    return SecretSessionCipher(key: SecretBytes(consuming: &key))
  }

  /// `value` (at most 128 bytes) as 128 big-endian bytes when 1 < value < p - 1, else nil.
  /// Public values are not secret: the comparison may stop at the first difference.
  static func inRange(_ value: [UInt8]) -> [UInt8]? {
    guard value.count <= prime.count, let first = value.firstIndex(where: { $0 != 0 }) else { return nil }
    let digits = value[first...]
    guard digits.count <= prime.count else { return nil }
    let padded = [UInt8](repeating: 0, count: prime.count - digits.count) + digits
    var primeMinusOne = prime
    primeMinusOne[primeMinusOne.count - 1] -= 1  // p ends in 0xff: no borrow
    let one = [UInt8](repeating: 0, count: prime.count - 1) + [1]
    guard padded.lexicographicallyPrecedes(primeMinusOne), one.lexicographicallyPrecedes(padded) else { return nil }
    return padded
  }
}
