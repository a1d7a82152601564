import SecretMemory
import Testing

@testable import AccountsSystem

/// AES-128 against FIPS-197, CBC against NIST SP 800-38A, and the PKCS#7 unpadding with every
/// malformed padding it must refuse.
@Suite struct AES128Tests {
  static func hex(_ text: String) -> [UInt8] { hexadecimal(text) }
  static func cipher(key: String) -> SecretSessionCipher {
    var bytes = hex(key)
    return SecretSessionCipher(key: SecretBytes(consuming: &bytes))
  }
  static func bytes(_ secret: SecretBytes?) -> [UInt8]? { secret?.withUnsafeBytes { Array($0) } }

  /// FIPS-197 appendix C.1, both directions.
  @Test func theFIPS197ExampleBlock() {
    let key = Self.hex("000102030405060708090a0b0c0d0e0f")
    let aes = key.withUnsafeBytes { AES128(key: $0) }
    var block = Self.hex("00112233445566778899aabbccddeeff")
    block.withUnsafeMutableBufferPointer { aes.encryptBlock($0.baseAddress!) }
    #expect(block == Self.hex("69c4e0d86a7b0430d8cdb78070b4c55a"))
    block.withUnsafeMutableBufferPointer { aes.decryptBlock($0.baseAddress!) }
    #expect(block == Self.hex("00112233445566778899aabbccddeeff"))
  }

  /// NIST SP 800-38A F.2.2, CBC-AES128.Decrypt: four blocks chained from the IV.
  @Test func theSP80038ACBCDecryption() {
    let key = Self.hex("2b7e151628aed2a6abf7158809cf4f3c")
    let plaintext = key.withUnsafeBytes {
      SecretSessionCipher.decryptBlocks(
        Self.hex(
          "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
            + "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7"),
        iv: Self.hex("000102030405060708090a0b0c0d0e0f"), key: $0)
    }
    #expect(
      plaintext
        == Self.hex(
          "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
            + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"))
  }

  @Test(arguments: [0, 1, 15, 16, 17, 31, 32, 100])
  func aRoundTripOfEachLengthStripsExactlyItsPadding(length: Int) {
    let cipher = Self.cipher(key: "2b7e151628aed2a6abf7158809cf4f3c")
    let iv = Self.hex("f0e0d0c0b0a090807060504030201000")
    let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
    let ciphertext = cipher.encrypt(plaintext, iv: iv)
    #expect(ciphertext.count == (length / 16 + 1) * 16)
    #expect(Self.bytes(cipher.decrypt(value: ciphertext, parameters: iv)) == plaintext)
  }

  @Test(arguments: [
    ("00112233445566778899aabbcc030303", 13),
    ("00112233445566778899aabbccddee01", 15),
    ("10101010101010101010101010101010", 0),
    ("00112233445566778899aabbccddeeff" + "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f", 17),
  ])
  func goodPaddingIsStripped(padded: String, length: Int) {
    #expect(SecretSessionCipher.unpaddedLength(Self.hex(padded)) == length)
  }

  @Test(arguments: [
    "00112233445566778899aabbccddee00",  // a pad byte of 0
    "11111111111111111111111111111111",  // 17, more than a block
    "ff112233445566778899aabbccddeeff",  // 255
    "00112233445566778899aabbcc040303",  // the pad bytes differ
    "00112233445566778899aabbcc030203",  // the pad bytes differ in the middle
    "02101010101010101010101010101010",  // 16, but the first pad byte is not
    "0011223344556677889901",  // not a whole block
    "",  // nothing at all
  ])
  func badPaddingIsRefused(padded: String) {
    #expect(SecretSessionCipher.unpaddedLength(Self.hex(padded)) == nil)
  }

  @Test func decryptionRefusesBadLengthsAndWrongKeys() {
    let cipher = Self.cipher(key: "2b7e151628aed2a6abf7158809cf4f3c")
    let iv = Self.hex("000102030405060708090a0b0c0d0e0f")
    let ciphertext = cipher.encrypt(Array("hunter2".utf8), iv: iv)
    #expect(Self.bytes(cipher.decrypt(value: ciphertext, parameters: iv)) == Array("hunter2".utf8))
    #expect(cipher.decrypt(value: ciphertext, parameters: Array(iv.prefix(15))) == nil)
    #expect(cipher.decrypt(value: ciphertext, parameters: iv + [0]) == nil)
    #expect(cipher.decrypt(value: ciphertext, parameters: []) == nil)
    #expect(cipher.decrypt(value: [], parameters: iv) == nil)
    #expect(cipher.decrypt(value: Array(ciphertext.prefix(15)), parameters: iv) == nil)
    #expect(cipher.decrypt(value: ciphertext + [0], parameters: iv) == nil)
    // A different key turns the padding into noise; this key and text were checked to leave no
    // valid padding (a wrong key passes about one time in 256, so only a fixed case can be tested).
    let other = Self.cipher(key: "000102030405060708090a0b0c0d0e0f")
    #expect(other.decrypt(value: ciphertext, parameters: iv) == nil)
  }
}
