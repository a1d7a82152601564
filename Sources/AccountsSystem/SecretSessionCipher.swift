import Glibc
import SecretMemory

/// The AES-128 key a `SecretServiceSessionKey` agreed with the service, and the CBC mode with
/// PKCS#7 padding that the Secret Service wraps each secret in (a `Secret` struct's parameters
/// are the 16-byte IV, its value the ciphertext). The key is a `SecretBytes`, wiped on release.
public struct SecretSessionCipher: Sendable {
  let key: SecretBytes

  init(key: SecretBytes) {
    precondition(key.count == AES128.keyByteCount)
    self.key = key
  }

  /// The plaintext of a Secret's value; nil for an IV that is not 16 bytes, a ciphertext that is
  /// not a non-zero multiple of 16 bytes, or padding that is not PKCS#7 (the wrong key, most
  /// likely). The intermediate buffer is wiped; the plaintext goes straight into `SecretBytes`.
  public func decrypt(value ciphertext: [UInt8], parameters iv: [UInt8]) -> SecretBytes? {
    let blockByteCount = AES128.blockByteCount
    guard iv.count == blockByteCount, !ciphertext.isEmpty, ciphertext.count % blockByteCount == 0 else {
      return nil
    }
    var plaintext = key.withUnsafeBytes { Self.decryptBlocks(ciphertext, iv: iv, key: $0) }
    defer { wipe(&plaintext) }
    guard let length = Self.unpaddedLength(plaintext) else { return nil }
    return plaintext.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
  }

  /// CBC decryption of whole blocks (NIST SP 800-38A section 6.2), padding left in place: the
  /// caller wipes the result.
  static func decryptBlocks(_ ciphertext: [UInt8], iv: [UInt8], key: UnsafeRawBufferPointer) -> [UInt8] {
    let blockByteCount = AES128.blockByteCount
    precondition(iv.count == blockByteCount && ciphertext.count % blockByteCount == 0)
    let cipher = AES128(key: key)
    var plaintext = ciphertext
    plaintext.withUnsafeMutableBufferPointer { blocks in
      // Backwards, so that each block's predecessor is still ciphertext when it is needed.
      for start in stride(from: blocks.count - blockByteCount, through: 0, by: -blockByteCount) {
        cipher.decryptBlock(blocks.baseAddress! + start)
        for index in 0..<blockByteCount {
          blocks[start + index] ^= start == 0 ? iv[index] : blocks[start - blockByteCount + index]
        }
      }
    }
    return plaintext
  }

  /// `plaintext` padded with PKCS#7 and encrypted with CBC under `iv` (16 bytes): what the
  /// service does, for tests that round-trip through `decrypt`.
  func encrypt(_ plaintext: [UInt8], iv: [UInt8]) -> [UInt8] {
    let blockByteCount = AES128.blockByteCount
    precondition(iv.count == blockByteCount)
    let cipher = key.withUnsafeBytes { AES128(key: $0) }
    let padByte = blockByteCount - plaintext.count % blockByteCount
    var blocks = plaintext + [UInt8](repeating: UInt8(padByte), count: padByte)
    blocks.withUnsafeMutableBufferPointer { blocks in
      for start in stride(from: 0, to: blocks.count, by: blockByteCount) {
        for index in 0..<blockByteCount {
          blocks[start + index] ^= start == 0 ? iv[index] : blocks[start - blockByteCount + index]
        }
        cipher.encryptBlock(blocks.baseAddress! + start)
      }
    }
    return blocks
  }

  /// The length of `padded` without its PKCS#7 padding: the last byte n is 1...16 and the last n
  /// bytes all equal n; nil otherwise. Every pad position is looked at, wherever a mismatch is.
  static func unpaddedLength(_ padded: [UInt8]) -> Int? {
    guard let last = padded.last, padded.count % AES128.blockByteCount == 0 else { return nil }
    let padByteCount = Int(last)
    guard padByteCount >= 1, padByteCount <= AES128.blockByteCount, padByteCount <= padded.count else { return nil }
    var difference: UInt8 = 0
    for index in (padded.count - padByteCount)..<padded.count { difference |= padded[index] ^ last }
    return difference == 0 ? padded.count - padByteCount : nil
  }
}
