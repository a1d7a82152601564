import SecretMemory

@testable import AccountsCore
@testable import AccountsSystem

/// HMAC-SHA1, -SHA256 and -SHA512 written out in Swift for the TOTP vectors only, so the unit
/// tests check `TOTP` against something that shares no code with GLib (the binary's HMAC,
/// checked end to end against oathtool). Plain FIPS 180-4; speed does not matter here.
enum ReferenceHMAC {
  static func code(_ algorithm: OTPAlgorithm, key: SecretBytes, message: [UInt8]) -> [UInt8] {
    let hash: ([UInt8]) -> [UInt8]
    let block: Int
    switch algorithm {
    case .sha1: (hash, block) = (sha1, 64)
    case .sha256: (hash, block) = (sha256, 64)
    case .sha512: (hash, block) = (sha512, 128)
    }
    var keyBytes = key.withUnsafeBytes { Array($0) }
    if keyBytes.count > block { keyBytes = hash(keyBytes) }
    keyBytes += [UInt8](repeating: 0, count: block - keyBytes.count)
    let inner = hash(keyBytes.map { $0 ^ 0x36 } + message)
    return hash(keyBytes.map { $0 ^ 0x5C } + inner)
  }

  /// AccountsSystem's own SHA-256 (checked against FIPS 180-4 in AccountsSystemTests).
  static func sha256(_ message: [UInt8]) -> [UInt8] { SHA256.hash(message) }

  static func padded(_ message: [UInt8], block: Int, lengthBytes: Int) -> [UInt8] {
    var data = message + [0x80]
    while (data.count + lengthBytes) % block != 0 { data.append(0) }
    let bits = UInt64(message.count) * 8
    data += [UInt8](repeating: 0, count: lengthBytes - 8)
    data += (0..<8).map { UInt8(truncatingIfNeeded: bits >> UInt64(56 - 8 * $0)) }
    return data
  }

  static func sha1(_ message: [UInt8]) -> [UInt8] {
    var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
    let data = padded(message, block: 64, lengthBytes: 8)
    func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
    for start in stride(from: 0, to: data.count, by: 64) {
      var w = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[start + 4 * i + $1]) } }
      for i in 16..<80 { w.append(rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1)) }
      var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
      for i in 0..<80 {
        let (f, k): (UInt32, UInt32) =
          switch i {
          case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
          case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
          case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
          default: (b ^ c ^ d, 0xCA62_C1D6)
          }
        let t = rotl(a, 5) &+ f &+ e &+ k &+ w[i]
        (e, d, c, b, a) = (d, c, rotl(b, 30), a, t)
      }
      h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d, h[4] &+ e]
    }
    return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * $0)) } }
  }

  static func sha512(_ message: [UInt8]) -> [UInt8] {
    var h: [UInt64] = [
      0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
      0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179,
    ]
    let data = padded(message, block: 128, lengthBytes: 16)
    func rotr(_ x: UInt64, _ n: UInt64) -> UInt64 { x >> n | x << (64 - n) }
    for start in stride(from: 0, to: data.count, by: 128) {
      var w = (0..<16).map { i in (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(data[start + 8 * i + $1]) } }
      for i in 16..<80 {
        let s0 = rotr(w[i - 15], 1) ^ rotr(w[i - 15], 8) ^ (w[i - 15] >> 7)
        let s1 = rotr(w[i - 2], 19) ^ rotr(w[i - 2], 61) ^ (w[i - 2] >> 6)
        w.append(w[i - 16] &+ s0 &+ w[i - 7] &+ s1)
      }
      var v = h
      for i in 0..<80 {
        let s1 = rotr(v[4], 14) ^ rotr(v[4], 18) ^ rotr(v[4], 41)
        let choice = (v[4] & v[5]) ^ (~v[4] & v[6])
        let t1 = v[7] &+ s1 &+ choice &+ sha512Constants[i] &+ w[i]
        let s0 = rotr(v[0], 28) ^ rotr(v[0], 34) ^ rotr(v[0], 39)
        let majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2])
        v = [t1 &+ s0 &+ majority, v[0], v[1], v[2], v[3] &+ t1, v[4], v[5], v[6]]
      }
      h = zip(h, v).map { $0 &+ $1 }
    }
    return h.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * $0)) } }
  }

  static let sha512Constants: [UInt64] = [
    0x428a_2f98_d728_ae22, 0x7137_4491_23ef_65cd, 0xb5c0_fbcf_ec4d_3b2f, 0xe9b5_dba5_8189_dbbc, 0x3956_c25b_f348_b538,
    0x59f1_11f1_b605_d019, 0x923f_82a4_af19_4f9b, 0xab1c_5ed5_da6d_8118, 0xd807_aa98_a303_0242, 0x1283_5b01_4570_6fbe,
    0x2431_85be_4ee4_b28c, 0x550c_7dc3_d5ff_b4e2, 0x72be_5d74_f27b_896f, 0x80de_b1fe_3b16_96b1, 0x9bdc_06a7_25c7_1235,
    0xc19b_f174_cf69_2694, 0xe49b_69c1_9ef1_4ad2, 0xefbe_4786_384f_25e3, 0x0fc1_9dc6_8b8c_d5b5, 0x240c_a1cc_77ac_9c65,
    0x2de9_2c6f_592b_0275, 0x4a74_84aa_6ea6_e483, 0x5cb0_a9dc_bd41_fbd4, 0x76f9_88da_8311_53b5, 0x983e_5152_ee66_dfab,
    0xa831_c66d_2db4_3210, 0xb003_27c8_98fb_213f, 0xbf59_7fc7_beef_0ee4, 0xc6e0_0bf3_3da8_8fc2, 0xd5a7_9147_930a_a725,
    0x06ca_6351_e003_826f, 0x1429_2967_0a0e_6e70, 0x27b7_0a85_46d2_2ffc, 0x2e1b_2138_5c26_c926, 0x4d2c_6dfc_5ac4_2aed,
    0x5338_0d13_9d95_b3df, 0x650a_7354_8baf_63de, 0x766a_0abb_3c77_b2a8, 0x81c2_c92e_47ed_aee6, 0x9272_2c85_1482_353b,
    0xa2bf_e8a1_4cf1_0364, 0xa81a_664b_bc42_3001, 0xc24b_8b70_d0f8_9791, 0xc76c_51a3_0654_be30, 0xd192_e819_d6ef_5218,
    0xd699_0624_5565_a910, 0xf40e_3585_5771_202a, 0x106a_a070_32bb_d1b8, 0x19a4_c116_b8d2_d0c8, 0x1e37_6c08_5141_ab53,
    0x2748_774c_df8e_eb99, 0x34b0_bcb5_e19b_48a8, 0x391c_0cb3_c5c9_5a63, 0x4ed8_aa4a_e341_8acb, 0x5b9c_ca4f_7763_e373,
    0x682e_6ff3_d6b2_b8a3, 0x748f_82ee_5def_b2fc, 0x78a5_636f_4317_2f60, 0x84c8_7814_a1f0_ab72, 0x8cc7_0208_1a64_39ec,
    0x90be_fffa_2363_1e28, 0xa450_6ceb_de82_bde9, 0xbef9_a3f7_b2c6_7915, 0xc671_78f2_e372_532b, 0xca27_3ece_ea26_619c,
    0xd186_b8c7_21c0_c207, 0xeada_7dd6_cde0_eb1e, 0xf57d_4f7f_ee6e_d178, 0x06f0_67aa_7217_6fba, 0x0a63_7dc5_a2c8_98a6,
    0x113f_9804_bef9_0dae, 0x1b71_0b35_131c_471b, 0x28db_77f5_2304_7d84, 0x32ca_ab7b_40c7_2493, 0x3c9e_be0a_15c9_bebc,
    0x431d_67c4_9c10_0d4c, 0x4cc5_d4be_cb3e_42b6, 0x597f_299c_fc65_7e2a, 0x5fcb_6fab_3ad6_faec, 0x6c44_198c_4a47_5817,
  ]
}
