import SecretMemory

/// The AES-128 key a `SecretServiceSessionKey` agreed with the service, and the CBC mode with
/// PKCS#7 padding that the Secret Service wraps each secret in (a `Secret` struct's parameters
/// are the 16-byte IV, its value the ciphertext). The key is a `SecretBytes`, wiped on release;
/// the cipher is libgcrypt's.
public struct SecretSessionCipher: Sendable {
  static let keyByteCount = 16
  static let blockByteCount = 16
  let key: SecretBytes

  init(key: SecretBytes) {
    precondition(key.count == Self.keyByteCount)
    self.key = key
  }

  /// The plaintext of a Secret's value; nil for an IV that is not 16 bytes, a ciphertext that is
  /// not a non-zero multiple of 16 bytes, or padding that is not PKCS#7 (the wrong key, most
  /// likely). The intermediate buffer is wiped; the plaintext goes straight into `SecretBytes`.
  public func decrypt(value ciphertext: [UInt8], parameters iv: [UInt8]) -> SecretBytes? {
    guard iv.count == Self.blockByteCount, !ciphertext.isEmpty, ciphertext.count % Self.blockByteCount == 0 else {
      return nil
    }
    var plaintext = ciphertext
    defer { wipe(&plaintext) }
    guard (try? run(encrypt: false, iv: iv, on: &plaintext)) != nil, let length = Self.unpaddedLength(plaintext)
    else { return nil }
    return plaintext.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
  }

  /// `plaintext` padded with PKCS#7 and encrypted with CBC under `iv` (16 bytes): what the
  /// service does, for tests that round-trip through `decrypt`.
  func encrypt(_ plaintext: [UInt8], iv: [UInt8]) throws(Cryptography.Unavailable) -> [UInt8] {
    let padByte = Self.blockByteCount - plaintext.count % Self.blockByteCount
    var blocks = plaintext + [UInt8](repeating: UInt8(padByte), count: padByte)
    try run(encrypt: true, iv: iv, on: &blocks)
    return blocks
  }

  private func run(encrypt: Bool, iv: [UInt8], on blocks: inout [UInt8]) throws(Cryptography.Unavailable) {
    try key.withUnsafeBytes { key in
      blocks.withUnsafeMutableBytes { data in
        Result { () throws(Cryptography.Unavailable) in try Cryptography.aes128CBC(encrypt: encrypt, key: key, iv: iv, data: data) }
      }
    }.get()
  }

  /// The length of `padded` without its PKCS#7 padding: the last byte n is 1...16 and the last n
  /// bytes all equal n; nil otherwise. Every pad position is looked at, wherever a mismatch is.
  static func unpaddedLength(_ padded: [UInt8]) -> Int? {
    guard let last = padded.last, padded.count % blockByteCount == 0 else { return nil }
    let padByteCount = Int(last)
    guard padByteCount >= 1, padByteCount <= blockByteCount, padByteCount <= padded.count else { return nil }
    var difference: UInt8 = 0
    for index in (padded.count - padByteCount)..<padded.count { difference |= padded[index] ^ last }
    return difference == 0 ? padded.count - padByteCount : nil
  }
}
