import Testing

@testable import AccountsSystem

/// SHA-256, HMAC-SHA256 and HKDF-SHA256 against their published vectors (FIPS 180-4's examples,
/// RFC 4231, RFC 5869), plus messages around the block boundaries whose digests come from
/// python3's hashlib.
@Suite struct HashTests {
  static func hex(_ text: String) -> [UInt8] { hexadecimal(text) }
  static func text(_ value: String) -> [UInt8] { Array(value.utf8) }

  @Test(arguments: [
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
  ])
  func sha256OfThePublishedExamples(message: String, digest: String) {
    #expect(SHA256.hash(Self.text(message)) == Self.hex(digest))
  }

  /// Lengths on each side of where the padding needs a second block (55, 56) and of a block (63,
  /// 64, 65); bytes `7 * index mod 256`, digests from python3's hashlib.
  @Test(arguments: [
    (55, "576a1bf8d4478657e6dc4af9398544765c2a92cde28478b019235cfed315fc09"),
    (56, "9b20501dfd1d99161c257950f3444f3e49230c351c5c8e0943ef369f85f5205d"),
    (63, "30b345906b493f06f69444b6521113511c242f30e29840462950035043682f1e"),
    (64, "d8bc63b4fc1156e5e7d95a418b9bf54cd3174bedbc2db40f74895349b229b3c0"),
    (65, "1ee23b0fbcaecc1aff4a9e8f1645f35ab2c8e13609cd73b68df8b5e3f63ce073"),
    (1000, "89f4ff56a25dd1db06a4ce6033603775d705fb96f30f8693733fef602a1ca532"),
  ])
  func sha256AroundTheBlockBoundaries(length: Int, digest: String) {
    let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }
    #expect(SHA256.hash(message) == Self.hex(digest))
  }

  @Test func sha256FedInUnevenPiecesGivesTheSameDigest() {
    let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
    var hasher = SHA256()
    var start = 0
    for size in [0, 1, 62, 3, 64, 130, 7, 200] + [533] {
      hasher.update(Array(message[start..<start + size]))
      start += size
    }
    #expect(start == message.count)
    #expect(hasher.finish() == Self.hex("89f4ff56a25dd1db06a4ce6033603775d705fb96f30f8693733fef602a1ca532"))
  }

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
