import CAccountsSystem
import Glibc
import SecretMemory

/// One side of a `dh-ietf1024-sha256-aes128-cbc-pkcs7` session of the Secret Service (the
/// freedesktop specification's "Transfer of Secrets", as libsecret and secret-tool open it):
/// Diffie-Hellman in the 1024-bit MODP group of RFC 2409 section 6.2 with generator 2, the
/// shared value left-padded to 128 bytes, HKDF-SHA256 with empty salt and info to a 16-byte
/// AES key, each secret in AES-128-CBC with PKCS#7 padding.
///
/// The private exponent lives in a `SecretBytes`, which wipes it when the key is released.
public struct SecretServiceSessionKey: Sendable {
  /// The algorithm name to pass to `OpenSession`.
  public static let algorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

  /// RFC 2409's "Second Oakley Group" prime, 2^1024 - 2^960 - 1 + 2^64 * (floor(2^894 pi) + 129093),
  /// most significant limb first as the RFC prints it.
  static let group = MontgomeryModulus(
    limbs: [
      0xffff_ffff_ffff_ffff, 0xc90f_daa2_2168_c234, 0xc4c6_628b_80dc_1cd1, 0x2902_4e08_8a67_cc74,
      0x020b_bea6_3b13_9b22, 0x514a_0879_8e34_04dd, 0xef95_19b3_cd3a_431b, 0x302b_0a6d_f25f_1437,
      0x4fe1_356d_6d51_c245, 0xe485_b576_625e_7ec6, 0xf44c_42e9_a637_ed6b, 0x0bff_5cb6_f406_b7ed,
      0xee38_6bfb_5a89_9fa5, 0xae9f_2411_7c4b_1fe6, 0x4928_6651_ece6_5381, 0xffff_ffff_ffff_ffff,
    ].reversed())

  /// 256 random bits, far more than the group's strength (about 80 bits) calls for.
  static let privateExponentByteCount = 32

  private let privateExponent: SecretBytes

  /// Our public value `2^x mod p`, big-endian, always 128 bytes (leading zeros kept): the input
  /// of `OpenSession` (a variant holding `ay`). gnome-keyring and KeePassXC read any length;
  /// kwalletd refuses anything but 128 bytes.
  public let publicKey: [UInt8]

  /// A fresh private exponent from the kernel's random pool.
  public init?() {
    var exponent = [UInt8](repeating: 0, count: Self.privateExponentByteCount)
    exponent.withUnsafeMutableBytes { fillRandom($0) }
    // The top bit set makes x >= 2^255: never 0 or 1, and every exponent the same length.
    exponent[0] |= 0x80
    self.init(privateExponent: &exponent)
  }

  /// A key with a chosen exponent (big-endian, 1 to 128 bytes, at least 2), which is wiped from
  /// the caller's array: for tests against published or computed values.
  init(privateExponent exponent: inout [UInt8]) {
    var generator = [UInt64](repeating: 0, count: MontgomeryModulus.limbCount)
    generator[0] = 2
    var publicValue = Self.group.power(generator, exponent: exponent)
    publicKey = MontgomeryModulus.bigEndianBytes(publicValue)
    wipe(&publicValue)
    privateExponent = SecretBytes(consuming: &exponent)
  }

  /// The cipher agreed with the service's public value (big-endian, 1 to 128 bytes, leading
  /// zeros allowed); nil unless 1 < Y < p - 1, which refuses the values that would force the
  /// shared secret to 1 or p - 1.
  public func agree(withServicePublicKey servicePublicKey: [UInt8]) -> SecretSessionCipher? {
    guard !servicePublicKey.isEmpty, let peer = MontgomeryModulus.limbs(fromBigEndian: servicePublicKey) else {
      return nil
    }
    var one = [UInt64](repeating: 0, count: MontgomeryModulus.limbCount)
    one[0] = 1
    var primeMinusOne = Self.group.limbs
    _ = MontgomeryModulus.subtract(one, from: &primeMinusOne)
    guard MontgomeryModulus.isLess(one, peer), MontgomeryModulus.isLess(peer, primeMinusOne) else { return nil }
    var exponent = privateExponent.withUnsafeBytes { Array($0) }
    var shared = Self.group.power(peer, exponent: exponent)
    wipe(&exponent)
    // Left-padded to the prime's 128 bytes, as libsecret's and gnome-keyring's egg_dh_gen_secret
    // do: dropping a leading zero byte would derive another key about one session in 256.
    var sharedBytes = MontgomeryModulus.bigEndianBytes(shared)
    wipe(&shared)
    var key = HKDFSHA256.deriveKey(inputKeyMaterial: sharedBytes, outputByteCount: AES128.keyByteCount)
    wipe(&sharedBytes)
    return SecretSessionCipher(key: SecretBytes(consuming: &key))
  }
}
