import SecretMemory
import Glibc

/// The AES block cipher with a 128-bit key (FIPS-197), one 16-byte block at a time.
///
/// Written for clarity over speed: the S-boxes are computed once from their definition (the
/// multiplicative inverse in GF(2^8) followed by the affine map), and MixColumns is done with
/// doublings in the field. A secret read from the Secret Service is a few blocks long.
///
/// A class so that the expanded key has one owner, which wipes it in `deinit`.
final class AES128 {
  static let blockByteCount = 16
  static let keyByteCount = 16
  private static let roundCount = 10

  /// The eleven round keys, 16 bytes each (FIPS-197 section 5.2).
  private let roundKeys: UnsafeMutableBufferPointer<UInt8>
  /// A copy of the state that ShiftRows reads from while it rewrites the block.
  private let scratch: UnsafeMutablePointer<UInt8>

  /// Expands `key`, which must be 16 bytes; the caller keeps and wipes its own copy.
  init(key: UnsafeRawBufferPointer) {
    precondition(key.count == Self.keyByteCount, "AES-128 takes a 16-byte key")
    let total = Self.blockByteCount * (Self.roundCount + 1)
    roundKeys = .allocate(capacity: total)
    scratch = .allocate(capacity: Self.blockByteCount)
    for index in 0..<Self.keyByteCount { roundKeys[index] = key[index] }
    var roundConstant: UInt8 = 1
    for index in stride(from: Self.keyByteCount, to: total, by: 4) {
      var word = (roundKeys[index - 4], roundKeys[index - 3], roundKeys[index - 2], roundKeys[index - 1])
      if index % Self.keyByteCount == 0 {
        let sBox = Self.substitution
        word = (sBox[Int(word.1)] ^ roundConstant, sBox[Int(word.2)], sBox[Int(word.3)], sBox[Int(word.0)])
        roundConstant = Self.doubled(roundConstant)
      }
      roundKeys[index] = roundKeys[index - 16] ^ word.0
      roundKeys[index + 1] = roundKeys[index - 15] ^ word.1
      roundKeys[index + 2] = roundKeys[index - 14] ^ word.2
      roundKeys[index + 3] = roundKeys[index - 13] ^ word.3
    }
  }

  deinit {
    wipe(UnsafeMutableRawBufferPointer(roundKeys))
    roundKeys.deallocate()
    wipe(scratch, count: Self.blockByteCount)
    scratch.deallocate()
  }

  /// Encrypts the 16 bytes at `block` in place (FIPS-197 section 5.1).
  func encryptBlock(_ block: UnsafeMutablePointer<UInt8>) {
    addRoundKey(0, to: block)
    for round in 1...Self.roundCount {
      for index in 0..<16 { block[index] = Self.substitution[Int(block[index])] }
      shiftRows(block, by: 1)
      if round != Self.roundCount { Self.mixColumns(block) }
      addRoundKey(round, to: block)
    }
  }

  /// Decrypts the 16 bytes at `block` in place (the inverse cipher, FIPS-197 section 5.3).
  func decryptBlock(_ block: UnsafeMutablePointer<UInt8>) {
    addRoundKey(Self.roundCount, to: block)
    for round in stride(from: Self.roundCount - 1, through: 0, by: -1) {
      shiftRows(block, by: 3)
      for index in 0..<16 { block[index] = Self.inverseSubstitution[Int(block[index])] }
      addRoundKey(round, to: block)
      if round != 0 { Self.inverseMixColumns(block) }
    }
  }

  private func addRoundKey(_ round: Int, to block: UnsafeMutablePointer<UInt8>) {
    for index in 0..<16 { block[index] ^= roundKeys[round * 16 + index] }
  }

  /// The state is laid out column by column: byte `row + 4 * column`. Row `row` moves left by
  /// `row * step` columns; a step of 3 (a right shift by `row`) undoes a step of 1.
  private func shiftRows(_ block: UnsafeMutablePointer<UInt8>, by step: Int) {
    scratch.update(from: block, count: 16)
    for row in 1..<4 {
      for column in 0..<4 { block[row + 4 * column] = scratch[row + 4 * ((column + row * step) % 4)] }
    }
  }

  /// MixColumns (FIPS-197 section 5.1.3) with doublings only: each byte becomes itself, plus
  /// the column's sum, plus twice the sum of itself and its neighbour below.
  private static func mixColumns(_ block: UnsafeMutablePointer<UInt8>) {
    for base in stride(from: 0, to: 16, by: 4) {
      let (a0, a1, a2, a3) = (block[base], block[base + 1], block[base + 2], block[base + 3])
      let sum = a0 ^ a1 ^ a2 ^ a3
      block[base] = a0 ^ sum ^ doubled(a0 ^ a1)
      block[base + 1] = a1 ^ sum ^ doubled(a1 ^ a2)
      block[base + 2] = a2 ^ sum ^ doubled(a2 ^ a3)
      block[base + 3] = a3 ^ sum ^ doubled(a3 ^ a0)
    }
  }

  /// InvMixColumns (FIPS-197 section 5.3.3) as a multiplication of each column by {04}x^2 + {05}
  /// (byte `a` becomes 5a + 4b, `b` the byte two rows away), then MixColumns: the product of
  /// the two polynomials modulo x^4 + 1 is InvMixColumns' {0b}x^3 + {0d}x^2 + {09}x + {0e}.
  private static func inverseMixColumns(_ block: UnsafeMutablePointer<UInt8>) {
    for base in stride(from: 0, to: 16, by: 4) {
      let evenRows = doubled(doubled(block[base] ^ block[base + 2]))
      let oddRows = doubled(doubled(block[base + 1] ^ block[base + 3]))
      block[base] ^= evenRows
      block[base + 1] ^= oddRows
      block[base + 2] ^= evenRows
      block[base + 3] ^= oddRows
    }
    mixColumns(block)
  }

  /// Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS-197 section 4.2.1).
  /// Without a branch on the (secret) top bit.
  private static func doubled(_ value: UInt8) -> UInt8 {
    value << 1 ^ (0 &- (value >> 7)) & 0x1b
  }

  /// Multiplication in GF(2^8), bit by bit.
  private static func multiply(_ left: UInt8, _ right: UInt8) -> UInt8 {
    var (product, factor, remaining): (UInt8, UInt8, UInt8) = (0, left, right)
    while remaining != 0 {
      if remaining & 1 != 0 { product ^= factor }
      factor = doubled(factor)
      remaining >>= 1
    }
    return product
  }

  /// SubBytes' table (FIPS-197 section 5.1.1): the inverse in GF(2^8) (0 for 0), computed as
  /// value^254 by square-and-multiply, then the affine map
  /// b ^ rotl(b, 1) ^ rotl(b, 2) ^ rotl(b, 3) ^ rotl(b, 4) ^ 0x63.
  private static let substitution: [UInt8] = (0..<256).map { value in
    var inverse: UInt8 = 1
    for bit in stride(from: 7, through: 0, by: -1) {
      inverse = multiply(inverse, inverse)
      if (254 >> bit) & 1 == 1 { inverse = multiply(inverse, UInt8(value)) }
    }
    func rotatedLeft(_ byte: UInt8, _ count: UInt8) -> UInt8 { byte << count | byte >> (8 - count) }
    return inverse ^ rotatedLeft(inverse, 1) ^ rotatedLeft(inverse, 2) ^ rotatedLeft(inverse, 3)
      ^ rotatedLeft(inverse, 4) ^ 0x63
  }

  /// InvSubBytes' table: the inverse permutation of `substitution`.
  private static let inverseSubstitution: [UInt8] = {
    var table = [UInt8](repeating: 0, count: 256)
    for (input, output) in substitution.enumerated() { table[Int(output)] = UInt8(input) }
    return table
  }()
}
