import Testing

@testable import AccountsSystem

/// HMAC-SHA256 and HKDF-SHA256 against their published vectors (RFC 4231, RFC 5869).
@Suite struct HMACKeyDerivationTests {
  static func hex(_ text: String) -> [UInt8] { hexadecimal(text) }
  static func text(_ value: String) -> [UInt8] { Array(value.utf8) }

  /// RFC 4231 test cases 1, 2 and 6 (a key longer than a block, hashed first).
  @Test(arguments: [
    (
      String(repeating: "0b", count: 20), "Hi There",
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    ),
    (
      "4a656665", "what do ya want for nothing?",
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    ),
    (
      String(repeating: "aa", count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    ),
  ])
  func hmacSHA256OfRFC4231(key: String, message: String, code: String) {
    #expect(HMACSHA256.authenticationCode(for: Self.text(message), key: Self.hex(key)) == Self.hex(code))
  }

  @Test func hkdfOfRFC5869TestCase1() {
    let key = HKDFSHA256.deriveKey(
      inputKeyMaterial: Self.hex(String(repeating: "0b", count: 22)), salt: Self.hex("000102030405060708090a0b0c"),
      info: Self.hex("f0f1f2f3f4f5f6f7f8f9"), outputByteCount: 42)
    #expect(
      key
        == Self.hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
  }

  /// Empty salt and info: exactly what the Secret Service session does.
  @Test func hkdfOfRFC5869TestCase3() {
    let key = HKDFSHA256.deriveKey(
      inputKeyMaterial: Self.hex(String(repeating: "0b", count: 22)), outputByteCount: 42)
    #expect(
      key
        == Self.hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    #expect(
      HKDFSHA256.deriveKey(inputKeyMaterial: Self.hex(String(repeating: "0b", count: 22)), outputByteCount: 16)
        == Array(key.prefix(16)), "a shorter output is a prefix")
  }
}
