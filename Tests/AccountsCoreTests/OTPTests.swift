import AccountsSystem
import SecretMemory
import Testing

@testable import AccountsCore

/// One-time codes (issue 18): strict base32, the otpauth:// URI, the canonical text the keyring
/// keeps, and TOTP against RFC 6238 appendix B.
@Suite struct OTPTests {
  static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
  static func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

  // MARK: Base32

  @Test(arguments: [
    ("", [UInt8]()), ("MY", Array("f".utf8)), ("MZXQ", Array("fo".utf8)), ("MZXW6", Array("foo".utf8)),
    ("MZXW6YQ", Array("foob".utf8)), ("MZXW6YTB", Array("fooba".utf8)), ("MZXW6YTBOI", Array("foobar".utf8)),
    ("MZXW6YTBOI======", Array("foobar".utf8)), ("mzxw6ytboi", Array("foobar".utf8)),
    ("MZXW 6YTB OI", Array("foobar".utf8)),
    ("MY======", Array("f".utf8)),
  ])
  func decodesRFC4648Vectors(text: String, expected: [UInt8]) throws {
    if text.isEmpty {
      #expect(throws: Base32Error.empty) { try Base32.decode(Self.bytes(text)) }
    } else {
      #expect(try Base32.decode(Self.bytes(text)) == expected)
    }
  }

  @Test func encodesWithoutPadding() {
    #expect(Base32.encode(Self.bytes("foobar")) == Self.bytes("MZXW6YTBOI"))
    #expect(Base32.encode(Self.bytes("12345678901234567890")) == Self.bytes("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
  }

  @Test(arguments: [
    ("   ", Base32Error.empty), ("===", Base32Error.empty),
    ("MZXW1", Base32Error.invalidCharacter(position: 5)), ("MZXW8", Base32Error.invalidCharacter(position: 5)),
    ("MZ-W6", Base32Error.invalidCharacter(position: 3)), ("MZXW\t6", Base32Error.invalidCharacter(position: 5)),
    ("MZXWé", Base32Error.invalidCharacter(position: 5)),
    ("MY=Y", Base32Error.paddingInside(position: 4)),
    ("M", Base32Error.invalidLength(characters: 1)), ("MZX", Base32Error.invalidLength(characters: 3)),
    ("MZXW6Y", Base32Error.invalidLength(characters: 6)),
    ("MY=", Base32Error.wrongPadding), ("MZXW6YTBOI=", Base32Error.wrongPadding),
    ("MZXW6YTB========", Base32Error.wrongPadding),
  ])
  func refuses(text: String, error: Base32Error) {
    #expect(throws: error) { try Base32.decode(Self.bytes(text)) }
  }

  // MARK: The URI

  @Test func readsEveryParameter() throws {
    let seed = try OTPSeed(
      parsing: Self.secret(
        "otpauth://totp/Big%20Corp:alice%40corp?secret=gezdgnbvgy3tqojq&issuer=Big+Corp&algorithm=sha256&digits=8&period=60&image=x\n"
      ))
    #expect(seed.key.withUnsafeBytes { Array($0) } == Self.bytes("1234567890"))
    #expect(seed.algorithm == .sha256)
    #expect(seed.digits == 8)
    #expect(seed.period == 60)
    #expect(seed.label == "Big Corp:alice@corp")
    #expect(seed.issuer == "Big Corp")
  }

  @Test func aBareSeedTakesTheDefaults() throws {
    let seed = try OTPSeed(parsing: Self.secret("  JBSWY3DPEHPK3PXP \r\n"))
    #expect(seed.algorithm == .sha1)
    #expect(seed.digits == 6)
    #expect(seed.period == 30)
    #expect(seed.label.isEmpty)
    #expect(seed.issuer == nil)
  }

  @Test(arguments: [
    ("otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1", "HOTP"),
    ("otpauth://steam/x?secret=JBSWY3DPEHPK3PXP", "not totp"),
    ("otpauth://totp", "no type"),
    ("otpauth://totp/x?issuer=corp", "no secret"),
    ("otpauth://totp/x?secret=", "no secret"),
    ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&secret=JBSWY3DPEHPK3PXP", "'secret' twice"),
    ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=6&Digits=6", "'digits' twice"),
    ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&algorithm=MD5", "algorithm"),
    ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=5", "digits"),
    ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=9", "digits"),
    ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=six", "digits"),
    ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=0", "period"),
    ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=-30", "period"),
    ("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=86401", "period"),
    ("otpauth://totp/x%2?secret=JBSWY3DPEHPK3PXP", "'%'"),
    ("otpauth://totp/x?secret=JBSW%ZZY3DPEHPK3PXP", "'%'"),
  ])
  func refusesURI(text: String, naming: String) {
    do {
      _ = try OTPSeed(parsing: Self.secret(text))
      Issue.record("took \(text)")
    } catch {
      #expect(error.message.contains(naming), "\(error.message)")
      #expect(!error.message.contains("JBSW"))
    }
  }

  @Test func readsKeeOTPsForm() throws {
    let seed = try OTPSeed(parsing: Self.secret("key=GEZDGNBVGY3TQOJQ&size=8&step=60&otpHashMode=Sha512"))
    #expect(seed.key.withUnsafeBytes { Array($0) } == Self.bytes("1234567890"))
    #expect((seed.algorithm, seed.digits, seed.period) == (.sha512, 8, 60))
    #expect(throws: OTPSeedError.uri("it gives the parameter 'key' twice")) {
      try OTPSeed(parsing: Self.secret("key=GEZDGNBVGY3TQOJQ&key=GEZDGNBVGY3TQOJQ"))
    }
    #expect(throws: OTPSeedError.uri("its encoder (steam) is not RFC 6238's")) {
      try OTPSeed(parsing: Self.secret("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&encoder=steam"))
    }
  }

  @Test func aBadSecretInAURIIsABase32Error() {
    #expect(throws: OTPSeedError.base32(.invalidCharacter(position: 5))) {
      try OTPSeed(parsing: Self.secret("otpauth://totp/x?secret=JBSW0Y3DPEHPK3PXP"))
    }
  }

  @Test func theCanonicalTextReadsBackTheSame() throws {
    let seed = try OTPSeed(
      parsing: Self.secret(
        "otpauth://TOTP/a%20b:c%26d?Secret=gezdgnbvgy3tqojq&issuer=x%26y&digits=7&algorithm=SHA512&period=45"))
    let text = seed.canonicalText
    #expect(
      String(decoding: text.withUnsafeBytes { Array($0) }, as: UTF8.self)
        == "otpauth://totp/a%20b:c%26d?secret=GEZDGNBVGY3TQOJQ&issuer=x%26y&algorithm=SHA512&digits=7&period=45")
    let again = try OTPSeed(parsing: text)
    #expect(again.key == seed.key)
    #expect(
      (again.algorithm, again.digits, again.period, again.label, again.issuer) == (.sha512, 7, 45, "a b:c&d", "x&y"))
  }

  // MARK: TOTP, RFC 6238 appendix B

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
    #expect(try TOTP.code(Self.rfcSeed(algorithm), at: time, hmac: ReferenceHMAC.code) == code)
  }

  @Test func fewerDigitsKeepLeadingZeros() throws {
    var seed = Self.rfcSeed(.sha1)
    seed.digits = 6
    #expect(try TOTP.code(seed, at: 1_111_111_109, hmac: ReferenceHMAC.code) == "081804")
    seed.digits = 7
    #expect(try TOTP.code(seed, at: 1_111_111_109, hmac: ReferenceHMAC.code) == "7081804")
    seed.digits = 10  // not from a URI (6 to 8), but never a trap: 31 bits, zeros in front
    #expect(try TOTP.code(seed, at: 1_111_111_109, hmac: ReferenceHMAC.code).count == 10)
  }

  @Test func theCodeChangesAtThePeriodsEnd() throws {
    var seed = Self.rfcSeed(.sha1)
    #expect(TOTP.secondsLeft(seed, at: 59) == 1)
    #expect(TOTP.secondsLeft(seed, at: 60) == 30)
    #expect(TOTP.expiry(seed, at: 45) == 60)
    seed.period = 60
    #expect(try TOTP.code(seed, at: 0, hmac: ReferenceHMAC.code) == TOTP.code(seed, at: 59, hmac: ReferenceHMAC.code))
    #expect(try TOTP.code(seed, at: 59, hmac: ReferenceHMAC.code) != TOTP.code(seed, at: 60, hmac: ReferenceHMAC.code))
  }

  /// A login sends the current code, or the next period's with less than 2 s of this one left
  /// (the backend accepts a period of skew; a code sent at 29.5 s would turn stale on its way),
  /// counted in milliseconds: 1.8 s left is less than 2.
  @Test func aLoginNearThePeriodsEndSendsTheNextPeriodsCode() throws {
    let seed = Self.rfcSeed(.sha1)
    let code = { (time: Int64) in try TOTP.code(seed, at: time, hmac: ReferenceHMAC.code) }
    let login = { (milliseconds: Int64) in try TOTP.loginCode(seed, atMilliseconds: milliseconds, hmac: ReferenceHMAC.code) }
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

  /// Keys under 80 bits (16 base32 characters) are refused: RFC 4226 asks for 128, common
  /// authenticators use 80, and a shorter one is a seed copied in part.
  @Test func aKeyShorterThanTenBytesIsRefused() throws {
    for text in ["MZXW6YTB", "GEZDGNBVGY3TQOI=", "otpauth://totp/x?secret=GEZDGNBVGY3TQOI"] {
      let error = #expect(throws: OTPSeedError.tooShort(minimum: 10)) { try OTPSeed(parsing: Self.secret(text)) }
      #expect(error?.message == "not a TOTP seed: its key is shorter than 10 bytes (16 base32 characters), too short to be safe")
      #expect(error?.fix?.contains("whole seed") == true)
    }
    #expect(try OTPSeed(parsing: Self.secret("GEZDGNBVGY3TQOJQ")).key.count == 10)
    #expect(Base32Error.invalidLength(characters: 1).message == "a base32 seed cannot be 1 character long")
    #expect(Base32Error.invalidLength(characters: 3).message == "a base32 seed cannot be 3 characters long")
  }

  @Test func aShortDigestIsAnError() {
    #expect(throws: TOTPError.shortDigest(0)) { try TOTP.code(Self.rfcSeed(.sha1), at: 59, hmac: { _, _, _ in [] }) }
  }
}
