import SecretMemory
import AccountsSystem

/// Base32 as RFC 4648 §6 spells it (`A`–`Z`, `2`–`7`), the alphabet of TOTP seeds.
///
/// Decoding is strict: lower case is read as upper case, `=` padding is taken at the end only
/// (and only as much as the length calls for), and spaces are skipped, since sites show seeds
/// in groups of four ("JBSW Y3DP EHPK 3PXP"); any other character, a length no encoder writes
/// (1, 3 or 6 characters past a multiple of 8), and an empty seed are refused.
public enum Base32 {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

  /// The bytes `text` encodes. The caller wipes `text`; the answer is the caller's to wipe.
  public static func decode<Text: Collection<UInt8>>(_ text: Text) throws(Base32Error) -> [UInt8] {
    var bits: UInt64 = 0
    var bitCount = 0
    var characters = 0
    var padding = 0
    var output: [UInt8] = []
    output.reserveCapacity(text.count * 5 / 8 + 1)
    defer { bits = 0 }
    for (position, byte) in text.enumerated() {
      if byte == 0x20 { continue }
      if byte == 0x3D {  // "="
        padding += 1
        continue
      }
      guard padding == 0 else {
        wipe(&output)
        throw .paddingInside(position: position + 1)
      }
      guard let value = value(of: byte) else {
        wipe(&output)
        throw .invalidCharacter(position: position + 1)
      }
      bits = (bits << 5) | UInt64(value)
      bitCount += 5
      characters += 1
      if bitCount >= 8 {
        bitCount -= 8
        output.append(UInt8(truncatingIfNeeded: bits >> UInt64(bitCount)))
        bits &= (1 << UInt64(bitCount)) - 1
      }
    }
    guard characters > 0 else { throw .empty }
    guard [0, 2, 4, 5, 7].contains(characters % 8) else {
      wipe(&output)
      throw .invalidLength(characters: characters)
    }
    if padding > 0, (characters + padding) % 8 != 0 || padding >= 8 {
      wipe(&output)
      throw .wrongPadding
    }
    return output
  }

  /// `bytes` in upper-case base32 without padding (as authenticator apps write seeds).
  public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count * 8 + 4) / 5)
    var bits: UInt64 = 0
    var bitCount = 0
    for byte in bytes {
      bits = (bits << 8) | UInt64(byte)
      bitCount += 8
      while bitCount >= 5 {
        bitCount -= 5
        output.append(alphabet[Int((bits >> UInt64(bitCount)) & 31)])
      }
      bits &= (1 << UInt64(bitCount)) - 1
    }
    if bitCount > 0 { output.append(alphabet[Int((bits << UInt64(5 - bitCount)) & 31)]) }
    bits = 0
    return output
  }

  private static func value(of byte: UInt8) -> UInt8? {
    switch byte {
    case 0x41...0x5A: byte - 0x41  // A-Z
    case 0x61...0x7A: byte - 0x61  // a-z
    case 0x32...0x37: byte - 0x32 + 26  // 2-7
    default: nil
    }
  }
}

/// Why a base32 seed was refused. Never holds the seed: positions count characters from 1.
public enum Base32Error: Error, Equatable, Sendable {
  case empty
  case invalidCharacter(position: Int)
  case paddingInside(position: Int)
  case invalidLength(characters: Int)
  case wrongPadding

  public var message: String {
    switch self {
    case .empty: "the seed is empty"
    case .invalidCharacter(let position):
      "character \(position) of the seed is not base32 (A-Z, 2-7)"
    case .paddingInside(let position): "character \(position) of the seed follows '=' padding"
    case .invalidLength(let characters):
      "a base32 seed cannot be \(characters) character\(characters == 1 ? "" : "s") long"
    case .wrongPadding: "the seed's '=' padding does not fit its length"
    }
  }
}
