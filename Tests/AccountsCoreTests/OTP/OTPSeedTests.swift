import AccountsSystem
import SecretMemory
import Testing

@testable import AccountsCore

/// A TOTP seed as users give it: the otpauth:// URI, KeeOTP's form or a bare base32 key, and the
/// canonical text the keyring keeps.
@Suite struct OTPSeedTests {
  static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
  static func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

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

  /// A fragment (`#...`, as some QR generators append) means nothing to a seed: it is ignored,
  /// wherever the last parameter ends, and never read into that parameter's value.
  @Test(arguments: [
    "otpauth://totp/corp:alice?period=60&secret=GEZDGNBVGY3TQOJQ#otp",
    "otpauth://totp/corp:alice?secret=GEZDGNBVGY3TQOJQ&period=60#",
    "otpauth://totp/corp:alice?secret=GEZDGNBVGY3TQOJQ&period=60#x?secret=JBSWY3DPEHPK3PXP&period=30",
  ])
  func aFragmentIsIgnored(text: String) throws {
    let seed = try OTPSeed(parsing: Self.secret(text))
    #expect(seed.key.withUnsafeBytes { Array($0) } == Self.bytes("1234567890"))
    #expect(seed.period == 60 && seed.label == "corp:alice")
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
}
