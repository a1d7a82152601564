import Testing

@testable import AccountsSystem

/// SHA-256 against FIPS 180-4's examples, plus messages around the block boundaries whose
/// digests come from python3's hashlib.
@Suite struct SHA256Tests {
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
}
