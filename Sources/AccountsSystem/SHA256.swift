import SecretMemory
import Glibc

/// SHA-256 (FIPS 180-4 section 6.2), for the key derivation of the Secret Service's encrypted
/// sessions. Written out here because the shipped binary links no cryptography library: the read
/// path must not load libsecret, GLib or libgcrypt.
///
/// Feed it with `update`, read the digest once with `finish`, which wipes the state.
struct SHA256 {
  static let blockByteCount = 64
  static let digestByteCount = 32

  /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
  private static let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  /// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
  private var state: [UInt32] = [
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
  ]
  /// Input not yet compressed: always fewer than 64 bytes between calls.
  private var pending: [UInt8] = []
  /// The message schedule, kept here to be wiped with the rest.
  private var schedule = [UInt32](repeating: 0, count: 64)
  private var messageByteCount: UInt64 = 0

  init() { pending.reserveCapacity(Self.blockByteCount) }

  /// The digest of `message` in one call.
  static func hash(_ message: [UInt8]) -> [UInt8] {
    var hasher = SHA256()
    hasher.update(message)
    return hasher.finish()
  }

  mutating func update(_ bytes: [UInt8]) {
    messageByteCount &+= UInt64(bytes.count)
    var index = 0
    if !pending.isEmpty {
      let taken = min(Self.blockByteCount - pending.count, bytes.count)
      pending.append(contentsOf: bytes[0..<taken])
      index = taken
      guard pending.count == Self.blockByteCount else { return }
      compress(pending[...])
      wipe(&pending)
    }
    while bytes.count - index >= Self.blockByteCount {
      compress(bytes[index..<index + Self.blockByteCount])
      index += Self.blockByteCount
    }
    pending.append(contentsOf: bytes[index...])
  }

  /// Pads the message (a 1 bit, zeros, the length in bits), returns the digest and wipes the state.
  mutating func finish() -> [UInt8] {
    let bitCount = messageByteCount &* 8
    pending.append(0x80)
    if pending.count > Self.blockByteCount - 8 {
      pending.append(contentsOf: repeatElement(0, count: Self.blockByteCount - pending.count))
      compress(pending[...])
      wipe(&pending)
    }
    pending.append(contentsOf: repeatElement(0, count: Self.blockByteCount - 8 - pending.count))
    for shift in stride(from: 56, through: 0, by: -8) { pending.append(UInt8(truncatingIfNeeded: bitCount >> shift)) }
    compress(pending[...])
    var digest: [UInt8] = []
    digest.reserveCapacity(Self.digestByteCount)
    for word in state {
      for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> shift)) }
    }
    wipe(&pending)
    wipe(&state)
    wipe(&schedule)
    return digest
  }

  /// One block of 64 bytes into the state (FIPS 180-4 section 6.2.2).
  private mutating func compress(_ block: ArraySlice<UInt8>) {
    var offset = block.startIndex
    for index in 0..<16 {
      schedule[index] =
        UInt32(block[offset]) << 24 | UInt32(block[offset + 1]) << 16 | UInt32(block[offset + 2]) << 8
        | UInt32(block[offset + 3])
      offset += 4
    }
    for index in 16..<64 {
      let early = schedule[index - 15]
      let late = schedule[index - 2]
      let sigma0 = early.rotatedRight(7) ^ early.rotatedRight(18) ^ (early >> 3)
      let sigma1 = late.rotatedRight(17) ^ late.rotatedRight(19) ^ (late >> 10)
      schedule[index] = sigma1 &+ schedule[index - 7] &+ sigma0 &+ schedule[index - 16]
    }
    var (a, b, c, d) = (state[0], state[1], state[2], state[3])
    var (e, f, g, h) = (state[4], state[5], state[6], state[7])
    for index in 0..<64 {
      let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
      let choice = (e & f) ^ (~e & g)
      let temporary1 = h &+ sum1 &+ choice &+ Self.roundConstants[index] &+ schedule[index]
      let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
      let majority = (a & b) ^ (a & c) ^ (b & c)
      let temporary2 = sum0 &+ majority
      (h, g, f, e) = (g, f, e, d &+ temporary1)
      (d, c, b, a) = (c, b, a, temporary1 &+ temporary2)
    }
    state[0] &+= a
    state[1] &+= b
    state[2] &+= c
    state[3] &+= d
    state[4] &+= e
    state[5] &+= f
    state[6] &+= g
    state[7] &+= h
  }
}

extension UInt32 {
  fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }
}
