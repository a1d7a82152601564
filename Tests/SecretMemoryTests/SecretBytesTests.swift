import SecretMemory
import Testing

/// The one secret type the host and the adapters share: its bytes, its equality (every byte
/// compared, lengths first), and the ways in.
@Suite struct SecretBytesTests {
  static func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

  @Test func equalBytesAreEqual() {
    #expect(Self.secret("hunter2") == Self.secret("hunter2"))
    #expect(SecretBytes.empty == Self.secret(""))
  }

  /// A difference anywhere counts, the first byte, a middle one and the last: the comparison
  /// does not stop at a prefix, nor skip the end.
  @Test(arguments: ["Xunter2", "hunXer2", "hunter3"])
  func aDifferenceAnywhereIsUnequal(other: String) {
    #expect(Self.secret("hunter2") != Self.secret(other))
  }

  /// Different lengths are unequal even when one is a prefix of the other, and no secret
  /// equals the empty one but the empty one.
  @Test func differentLengthsAreUnequal() {
    #expect(Self.secret("hunter2") != Self.secret("hunter"))
    #expect(Self.secret("hunter") != Self.secret("hunter2"))
    #expect(Self.secret("a") != .empty)
    #expect(SecretBytes.empty != Self.secret("\0"), "a NUL byte is a byte")
  }

  @Test func emptyHasNoBytes() {
    #expect(SecretBytes.empty.isEmpty)
    #expect(SecretBytes.empty.count == 0)
    #expect(SecretBytes.empty.unprotectedBytes == [])
    #expect(SecretBytes.empty.withUnsafeCString { String(cString: $0) } == "")
    #expect(!Self.secret("x").isEmpty)
  }

  /// Consuming an array takes its bytes and leaves the array empty: no second copy to wipe.
  @Test func consumingEmptiesTheArray() {
    var bytes: [UInt8] = [1, 2, 0, 255]
    let secret = SecretBytes(consuming: &bytes)
    #expect(bytes.isEmpty)
    #expect(secret.unprotectedBytes == [1, 2, 0, 255])
    #expect(secret.count == 4)
  }

  /// The initialiser is handed exactly `count` bytes, zeroed.
  @Test func initializingWritesExactlyCountBytes() {
    var seen: [UInt8] = []
    let secret = SecretBytes(count: 3) { buffer in
      seen = Array(buffer)
      buffer.copyBytes(from: [7, 8, 9])
    }
    #expect(seen == [0, 0, 0])
    #expect(secret.unprotectedBytes == [7, 8, 9])
    var handed = -1
    let none = SecretBytes(count: 0) { handed = $0.count }
    #expect(handed == 0)
    #expect(none.isEmpty)
  }

  @Test func copyingTakesTheBytesAsGiven() {
    let source: [UInt8] = [0, 10, 13, 0xff]
    let secret = source.withUnsafeBytes { SecretBytes(copying: $0) }
    #expect(secret.unprotectedBytes == source)
    #expect(secret.withUnsafeBytes { Array($0) } == source)
  }

  /// C APIs get the bytes followed by one NUL.
  @Test func cStringEndsInOneNul() {
    let secret = Self.secret("pässword")
    #expect(secret.withUnsafeCString { String(cString: $0) } == "pässword")
    #expect(secret.withUnsafeCString { $0[secret.count] } == 0)
  }

  @Test func utf8TextIsTold() {
    #expect(Self.secret("pässword").isUTF8Text)
    var invalid: [UInt8] = [0x66, 0xff, 0x6f]
    #expect(!SecretBytes(consuming: &invalid).isUTF8Text)
  }
}
