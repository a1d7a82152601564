import AccountsSystem
import SecretMemory
import Testing

@testable import AccountsCore

/// TOTP codes against RFC 6238 appendix B, computed with libgcrypt's HMAC as the binary does,
/// and the code a login sends near a period's end.
@Suite struct TOTPTests {
  /// The appendix's seeds are ASCII: 20, 32 and 64 bytes for SHA1, SHA256, SHA512.
  static func rfcSeed(_ algorithm: OTPAlgorithm) -> OTPSeed {
    let base = "1234567890"
    let length =
      switch algorithm {
      case .sha1: 20
      case .sha256: 32
      case .sha512: 64
      }
    var key = Array(String(repeating: base, count: 7).utf8.prefix(length))
    return OTPSeed(key: SecretBytes(consuming: &key), algorithm: algorithm, digits: 8)
  }

  static let appendixB: [(Int64, OTPAlgorithm, String)] = [
    (59, .sha1, "94287082"), (59, .sha256, "46119246"), (59, .sha512, "90693936"),
    (1_111_111_109, .sha1, "07081804"), (1_111_111_109, .sha256, "68084774"), (1_111_111_109, .sha512, "25091201"),
    (1_111_111_111, .sha1, "14050471"), (1_111_111_111, .sha256, "67062674"), (1_111_111_111, .sha512, "99943326"),
    (1_234_567_890, .sha1, "89005924"), (1_234_567_890, .sha256, "91819424"), (1_234_567_890, .sha512, "93441116"),
    (2_000_000_000, .sha1, "69279037"), (2_000_000_000, .sha256, "90698825"), (2_000_000_000, .sha512, "38618901"),
    (20_000_000_000, .sha1, "65353130"), (20_000_000_000, .sha256, "77737706"), (20_000_000_000, .sha512, "47863826"),
  ]

  @Test(arguments: appendixB)
  func matchesRFC6238(time: Int64, algorithm: OTPAlgorithm, code: String) throws {
    #expect(try TOTP.code(Self.rfcSeed(algorithm), at: time, hmac: TOTP.libgcrypt) == code)
  }

  @Test func fewerDigitsKeepLeadingZeros() throws {
    var seed = Self.rfcSeed(.sha1)
    seed.digits = 6
    #expect(try TOTP.code(seed, at: 1_111_111_109, hmac: TOTP.libgcrypt) == "081804")
    seed.digits = 7
    #expect(try TOTP.code(seed, at: 1_111_111_109, hmac: TOTP.libgcrypt) == "7081804")
    seed.digits = 10  // not from a URI (6 to 8), but never a trap: 31 bits, zeros in front
    #expect(try TOTP.code(seed, at: 1_111_111_109, hmac: TOTP.libgcrypt).count == 10)
  }

  @Test func theCodeChangesAtThePeriodsEnd() throws {
    var seed = Self.rfcSeed(.sha1)
    #expect(TOTP.secondsLeft(seed, at: 59) == 1)
    #expect(TOTP.secondsLeft(seed, at: 60) == 30)
    #expect(TOTP.expiry(seed, at: 45) == 60)
    seed.period = 60
    #expect(try TOTP.code(seed, at: 0, hmac: TOTP.libgcrypt) == TOTP.code(seed, at: 59, hmac: TOTP.libgcrypt))
    #expect(try TOTP.code(seed, at: 59, hmac: TOTP.libgcrypt) != TOTP.code(seed, at: 60, hmac: TOTP.libgcrypt))
  }

  /// A login sends the current code, or the next period's with less than 2 s of this one left
  /// (the backend accepts a period of skew; a code sent at 29.5 s would turn stale on its way),
  /// counted in milliseconds: 1.8 s left is less than 2.
  @Test func aLoginNearThePeriodsEndSendsTheNextPeriodsCode() throws {
    let seed = Self.rfcSeed(.sha1)
    let code = { (time: Int64) in try TOTP.code(seed, at: time, hmac: TOTP.libgcrypt) }
    let login = { (milliseconds: Int64) in try TOTP.loginCode(seed, atMilliseconds: milliseconds, hmac: TOTP.libgcrypt) }
    #expect(try login(30_000) == code(30))
    #expect(try login(57_000) == code(57), "3 s left: this period's")
    #expect(try login(58_000) == code(58), "2.0 s left: this period's")
    #expect(try login(58_001) == code(60), "1.999 s left: the next one's")
    #expect(try login(58_200) == code(60), "1.8 s left: the next one's")
    #expect(try login(58_700) == code(60), "1.3 s left: the next one's")
    #expect(try login(59_000) == code(60), "1 s left: the next one's")
    #expect(try login(59_950) == code(60), "0.05 s left: the next one's")
    #expect(try login(60_000) == code(60), "a new period: its own")
    #expect(try code(59) != code(60))
  }

  @Test func aShortDigestIsAnError() {
    #expect(throws: TOTPError.shortDigest(0)) { try TOTP.code(Self.rfcSeed(.sha1), at: 59, hmac: { _, _, _ in [] }) }
  }
}
