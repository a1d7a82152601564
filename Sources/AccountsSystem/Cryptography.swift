import CCrypto
import SecretMemory

/// The cryptography accounts needs, every primitive from libgcrypt (`accounts_crypto.h`),
/// loaded the first time a command uses one: the Secret Service session, one-time codes, and
/// the digests the adapter host lends adapters. Nothing here computes a hash, a cipher or a
/// power itself.
public enum Cryptography {
  /// libgcrypt could not be loaded: the text says what to install.
  public struct Unavailable: UserFacingError, Sendable {
    public let text: String
    public var status: ExitStatus { .failure }
    public var message: String { text }
    public var fix: String? { nil }
  }

  public enum Hash: Sendable {
    case md5, sha1, sha256, sha512

    var code: Int32 {
      switch self {
      case .md5: Int32(ACCOUNTS_CRYPTO_MD5.rawValue)
      case .sha1: Int32(ACCOUNTS_CRYPTO_SHA1.rawValue)
      case .sha256: Int32(ACCOUNTS_CRYPTO_SHA256.rawValue)
      case .sha512: Int32(ACCOUNTS_CRYPTO_SHA512.rawValue)
      }
    }

    /// The digest's length in bytes.
    public var byteCount: Int {
      switch self {
      case .md5: 16
      case .sha1: 20
      case .sha256: 32
      case .sha512: 64
      }
    }
  }

  /// Loads libgcrypt once per process.
  public static func load() throws(Unavailable) {
    if let error = accounts_crypto_load() {
      throw Unavailable(text: "cannot load libgcrypt: " + String(cString: error))
    }
  }

  /// `hash` of `data` into `out`, which holds at least `hash.byteCount` bytes.
  public static func digest(_ hash: Hash, of data: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer)
    throws(Unavailable)
  {
    try load()
    precondition(out.count >= hash.byteCount)
    let status = accounts_crypto_digest(
      hash.code, data.baseAddress, data.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
    precondition(status == 0, "libgcrypt refused a digest of a known hash")
  }

  /// HMAC-`hash` of `data` under `key` into `out`, which holds at least `hash.byteCount` bytes.
  public static func hmac(
    _ hash: Hash, key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
  ) throws(Unavailable) {
    try load()
    precondition(out.count >= hash.byteCount)
    let status = accounts_crypto_hmac(
      hash.code, key.baseAddress, key.count, data.baseAddress, data.count,
      out.baseAddress!.assumingMemoryBound(to: UInt8.self))
    guard status == 0 else { throw Unavailable(text: "libgcrypt could not compute an HMAC") }
  }

  /// HMAC-`hash` of `data` under `key`.
  public static func hmac(_ hash: Hash, key: UnsafeRawBufferPointer, data: [UInt8]) throws(Unavailable) -> [UInt8] {
    try load()
    var out = [UInt8](repeating: 0, count: hash.byteCount)
    let status = data.withUnsafeBytes { data in
      out.withUnsafeMutableBufferPointer { out in
        accounts_crypto_hmac(hash.code, key.baseAddress, key.count, data.baseAddress, data.count, out.baseAddress!)
      }
    }
    guard status == 0 else { throw Unavailable(text: "libgcrypt could not compute an HMAC") }
    return out
  }

  /// HKDF-SHA256 (RFC 5869) with an empty salt and info, as the Secret Service session derives
  /// its key: extract and expand over libgcrypt's HMAC (libgcrypt 1.10, in Debian 12, has no
  /// HKDF of its own; libsecret composes it the same way). Intermediate keys are wiped.
  public static func hkdfSHA256(inputKeyMaterial: [UInt8], outputByteCount: Int) throws(Unavailable) -> [UInt8] {
    precondition(outputByteCount >= 0 && outputByteCount <= 255 * 32, "HKDF output too long")
    let salt = [UInt8](repeating: 0, count: 32)
    var pseudorandomKey = try salt.withUnsafeBytes { salt in
      Result { () throws(Unavailable) in try hmac(.sha256, key: salt, data: inputKeyMaterial) }
    }.get()
    defer { wipe(&pseudorandomKey) }
    var output: [UInt8] = []
    output.reserveCapacity(outputByteCount)  // no reallocation leaves a copy behind
    var block: [UInt8] = []
    block.reserveCapacity(33)
    var counter: UInt8 = 1
    while output.count < outputByteCount {
      block.append(counter)
      var next = try pseudorandomKey.withUnsafeBytes { key in
        Result { () throws(Unavailable) in try hmac(.sha256, key: key, data: block) }
      }.get()
      wipe(&block)
      block.removeAll(keepingCapacity: true)
      block.append(contentsOf: next)
      output.append(contentsOf: next.prefix(outputByteCount - output.count))
      wipe(&next)
      counter &+= 1
    }
    wipe(&block)
    return output
  }

  /// `base ^ exponent mod modulus`, each unsigned big-endian, the result left-padded to the
  /// modulus's length. The exponent and the result live in libgcrypt's secure memory while it
  /// works; the caller wipes what it gets back.
  public static func power(
    _ base: [UInt8], exponent: UnsafeRawBufferPointer, modulus: [UInt8]
  ) throws(Unavailable) -> [UInt8] {
    try load()
    var out = [UInt8](repeating: 0, count: modulus.count)
    let status = out.withUnsafeMutableBufferPointer { out in
      accounts_crypto_power_mod(
        base, base.count, exponent.baseAddress?.assumingMemoryBound(to: UInt8.self), exponent.count, modulus,
        modulus.count, out.baseAddress!)
    }
    guard status == 0 else { throw Unavailable(text: "libgcrypt could not compute a modular power") }
    return out
  }

  /// AES-128-CBC over whole blocks of `data` in place; `key` and `iv` are 16 bytes each.
  public static func aes128CBC(
    encrypt: Bool, key: UnsafeRawBufferPointer, iv: [UInt8], data: UnsafeMutableRawBufferPointer
  ) throws(Unavailable) {
    try load()
    precondition(key.count == 16 && iv.count == 16 && data.count % 16 == 0)
    let status = accounts_crypto_aes128_cbc(
      encrypt ? 1 : 0, key.baseAddress!.assumingMemoryBound(to: UInt8.self), iv,
      data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count)
    guard status == 0 else { throw Unavailable(text: "libgcrypt could not run AES-128-CBC") }
  }
}
