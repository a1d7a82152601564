import SecretMemory
import Glibc

/// Exponentiation modulo an odd 1024-bit number with Montgomery multiplication, for the
/// Diffie-Hellman exchange of the Secret Service's encrypted sessions.
///
/// Numbers are 16 limbs of 64 bits, least significant first. Montgomery's form of `a` is
/// `a * R mod m` with `R = 2^1024`; multiplying two such forms and dividing by `R` (the "CIOS"
/// interleaving of Koc, Acar and Kaliski) needs no division by `m`. The exponentiation touches
/// the same limbs and runs the same steps whatever the exponent's bits are, and wipes its
/// workspace, because the exponent and the result are secret.
struct MontgomeryModulus {
  static let limbCount = 16
  static let byteCount = limbCount * 8

  /// The modulus, least significant limb first.
  let limbs: [UInt64]
  /// `-m^-1 mod 2^64`, the factor that clears one low limb per step.
  private let negatedInverse: UInt64
  /// `R^2 mod m`, which turns a number into Montgomery's form in one multiplication.
  private var rSquared: [UInt64]

  /// `limbs` least significant first, 16 of them, odd, the top bit set.
  init(limbs: [UInt64]) {
    precondition(limbs.count == Self.limbCount && limbs[Self.limbCount - 1] >> 63 == 1 && limbs[0] & 1 == 1)
    self.limbs = limbs
    // Newton's iteration doubles the correct low bits each step; m * m = 1 mod 8 gives 3 to start.
    var inverse = limbs[0]
    for _ in 0..<5 { inverse = inverse &* (2 &- limbs[0] &* inverse) }
    negatedInverse = 0 &- inverse
    // R mod m is 2^1024 - m (m > 2^1023); doubled, it is 2R, Montgomery's form of 2. Squaring
    // Montgomery's form of 2^k gives that of 2^2k, so ten squarings give that of 2^1024 = R:
    // R * R mod m.
    var value = [UInt64](repeating: 0, count: Self.limbCount)
    _ = Self.subtract(limbs, from: &value)
    var carry: UInt64 = 0
    for index in 0..<Self.limbCount {
      let next = value[index] >> 63
      value[index] = value[index] << 1 | carry
      carry = next
    }
    if carry == 1 || !Self.isLess(value, limbs) { _ = Self.subtract(limbs, from: &value) }
    rSquared = []
    var product = [UInt64](repeating: 0, count: Self.limbCount + 2)
    for _ in 0..<10 {
      value.withUnsafeMutableBufferPointer { value in
        product.withUnsafeMutableBufferPointer { product in
          multiply(value.baseAddress!, value.baseAddress!, into: value.baseAddress!, product: product.baseAddress!)
        }
      }
    }
    rSquared = value
  }

  /// `base^exponent mod m` for `base < m` (limbs) and `exponent` big-endian of any length.
  ///
  /// Four bits at a time: four squarings, then a multiplication by `base^digit` from a table of
  /// the 16 powers, read whole with masks so that which entry was taken leaves no trace in the
  /// memory accessed (a digit of 0 multiplies by 1).
  func power(_ base: [UInt64], exponent: [UInt8]) -> [UInt64] {
    let count = Self.limbCount
    precondition(base.count == count)
    // The table, three numbers and the multiplication's 18 limbs, in one buffer wiped at the end.
    let workspace = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: (16 + 3) * count + (count + 2))
    defer {
      wipe(UnsafeMutableRawBufferPointer(workspace))
      workspace.deallocate()
    }
    workspace.initialize(repeating: 0)
    let table = workspace.baseAddress!
    let (accumulator, factor, plain) = (table + 16 * count, table + 17 * count, table + 18 * count)
    let product = table + 19 * count
    // table[i] = base^i in Montgomery's form: table[0] = 1 * R^2 / R, table[1] = base * R^2 / R.
    plain[0] = 1
    rSquared.withUnsafeBufferPointer { rSquared in
      multiply(plain, rSquared.baseAddress!, into: table, product: product)
      base.withUnsafeBufferPointer { plain.update(from: $0.baseAddress!, count: count) }
      multiply(plain, rSquared.baseAddress!, into: table + count, product: product)
    }
    for power in 2..<16 {
      multiply(table + (power - 1) * count, table + count, into: table + power * count, product: product)
    }
    accumulator.update(from: table, count: count)
    for byte in exponent {
      for digit in [byte >> 4, byte & 0x0f] {
        for _ in 0..<4 { multiply(accumulator, accumulator, into: accumulator, product: product) }
        factor.update(repeating: 0, count: count)
        for power in 0..<16 {
          let difference = UInt64(power) ^ UInt64(digit)
          let taken = ((difference | (0 &- difference)) >> 63) &- 1  // all ones when equal, else 0
          for index in 0..<count { factor[index] |= table[power * count + index] & taken }
        }
        multiply(accumulator, factor, into: accumulator, product: product)
      }
    }
    plain.update(repeating: 0, count: count)
    plain[0] = 1
    multiply(accumulator, plain, into: factor, product: product)  // times 1 / R: out of Montgomery's form
    return Array(UnsafeBufferPointer(start: factor, count: count))
  }

  /// `left * right / R mod m` for `left, right < m`; `result` may be either input. `product`
  /// has 18 limbs of scratch.
  private func multiply(
    _ left: UnsafePointer<UInt64>, _ right: UnsafePointer<UInt64>, into result: UnsafeMutablePointer<UInt64>,
    product: UnsafeMutablePointer<UInt64>
  ) {
    let count = Self.limbCount
    product.update(repeating: 0, count: count + 2)
    limbs.withUnsafeBufferPointer { modulus in
      for outer in 0..<count {
        // product += left * right[outer]
        var carry: UInt64 = 0
        for index in 0..<count {
          (carry, product[index]) = Self.multiplyAdd(left[index], right[outer], product[index], carry)
        }
        let (top, overflow) = product[count].addingReportingOverflow(carry)
        product[count] = top
        product[count + 1] = overflow ? 1 : 0
        // product = (product + factor * m) / 2^64, the factor chosen so that the low limb is zero
        let factor = product[0] &* negatedInverse
        (carry, _) = Self.multiplyAdd(factor, modulus[0], product[0], 0)
        for index in 1..<count {
          (carry, product[index - 1]) = Self.multiplyAdd(factor, modulus[index], product[index], carry)
        }
        let (last, lastOverflow) = product[count].addingReportingOverflow(carry)
        product[count - 1] = last
        product[count] = product[count + 1] &+ (lastOverflow ? 1 : 0)
      }
      // The product is below 2m: subtract m once, and keep the difference unless it went negative.
      var borrow: UInt64 = 0
      for index in 0..<count {
        let (partial, borrow1) = product[index].subtractingReportingOverflow(modulus[index])
        let (difference, borrow2) = partial.subtractingReportingOverflow(borrow)
        result[index] = difference
        borrow = (borrow1 ? 1 : 0) | (borrow2 ? 1 : 0)
      }
      let keepDifference = 0 &- (product[count] | (1 - borrow))
      for index in 0..<count { result[index] = result[index] & keepDifference | product[index] & ~keepDifference }
    }
  }

  /// `(high, low)` of `a * b + c + d`, which cannot overflow 128 bits.
  @inline(__always)
  private static func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (UInt64, UInt64) {
    let (high, low) = a.multipliedFullWidth(by: b)
    let (sum1, overflow1) = low.addingReportingOverflow(c)
    let (sum2, overflow2) = sum1.addingReportingOverflow(d)
    return (high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0), sum2)
  }

  /// The limbs of a big-endian number of at most 128 bytes (leading zeros allowed); nil if longer.
  static func limbs(fromBigEndian bytes: [UInt8]) -> [UInt64]? {
    guard bytes.count <= byteCount else { return nil }
    var limbs = [UInt64](repeating: 0, count: limbCount)
    for (position, byte) in bytes.reversed().enumerated() {
      limbs[position / 8] |= UInt64(byte) << (8 * UInt64(position % 8))
    }
    return limbs
  }

  /// The number as exactly 128 big-endian bytes, leading zeros kept.
  static func bigEndianBytes(_ limbs: [UInt64]) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: byteCount)
    for position in 0..<byteCount {
      bytes[byteCount - 1 - position] = UInt8(truncatingIfNeeded: limbs[position / 8] >> (8 * UInt64(position % 8)))
    }
    return bytes
  }

  /// Whether `left < right`, both of 16 limbs (the values compared are public).
  static func isLess(_ left: [UInt64], _ right: [UInt64]) -> Bool {
    for index in stride(from: limbCount - 1, through: 0, by: -1) where left[index] != right[index] {
      return left[index] < right[index]
    }
    return false
  }

  /// `value -= subtrahend` modulo 2^1024; whether it borrowed.
  static func subtract(_ subtrahend: [UInt64], from value: inout [UInt64]) -> Bool {
    var borrow = false
    for index in 0..<limbCount {
      let (partial, borrow1) = value[index].subtractingReportingOverflow(subtrahend[index])
      let (difference, borrow2) = partial.subtractingReportingOverflow(borrow ? 1 : 0)
      value[index] = difference
      borrow = borrow1 || borrow2
    }
    return borrow
  }
}
