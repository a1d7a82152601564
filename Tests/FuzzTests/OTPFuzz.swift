import AccountsSystem
import SecretMemory

@testable import AccountsCore

/// TOTP seeds: base32 encodes and decodes back (in any case, with spaces and padding); a seed
/// written as its otpauth URI reads back the same; mutated URIs, KeeOTP forms and random bytes
/// give a seed or a typed error (exit status 2) that never quotes the secret.
enum OTPFuzz {
  static let pieces = [
    "&", "=", "?", "#", "/", "%", "%2", "%zz", "%41", "+", "secret=", "&secret=A", "issuer=", "algorithm=SHA256",
    "algorithm=md5", "digits=9", "digits=0000006", "period=0", "period=86401", "encoder=steam", "otpauth://hotp/",
    "TOTP", "key=", "&size=8", "&step=30", "&otpHashMode=SHA512", " ", "\t", "\n", "=", "====",
  ]

  static func oneCase(_ fuzz: inout Case) {
    let key = (0..<fuzz.below(70)).map { _ in UInt8(truncatingIfNeeded: fuzz.random.next()) }
    base32(key, &fuzz)

    guard key.count >= OTPSeed.minimumKeyLength else { return }
    var keyCopy = key
    let seed = OTPSeed(
      key: SecretBytes(consuming: &keyCopy), algorithm: fuzz.pick(OTPAlgorithm.allCases), digits: 6 + fuzz.below(3),
      period: 1 + fuzz.below(86_400), label: fuzz.oneIn(3) ? "" : fuzz.text(upTo: 12),
      issuer: fuzz.oneIn(3) ? nil : fuzz.text(upTo: 8))
    let uri = text(seed.canonicalText)
    do {
      let back = try OTPSeed(parsing: seed.canonicalText)
      fuzz.check(same(back, seed), "the seed of \(uri.debugDescription) reads back otherwise")
    } catch {
      fuzz.check(false, "the URI a seed writes is refused (\(error.message)): \(uri.debugDescription)")
    }

    let secret = String(decoding: Base32.encode(key), as: UTF8.self)
    let keeOTP = "key=\(secret)&size=\(seed.digits)&step=\(seed.period)&otpHashMode=\(seed.algorithm.rawValue)"
    let bytes: [UInt8] =
      switch fuzz.below(5) {
      case 0: fuzz.bytes(upTo: 40)
      case 1: fuzz.mutated(Array(keeOTP.utf8), pieces: pieces)
      default: fuzz.mutated(Array(uri.utf8), pieces: pieces)
      }
    var input = bytes
    do {
      let parsed = try OTPSeed(parsing: SecretBytes(consuming: &input))
      fuzz.tally("mutated seed read")
      // What was read writes a URI that reads back the same.
      let again = try? OTPSeed(parsing: parsed.canonicalText)
      fuzz.check(again.map { same($0, parsed) } ?? false, "a seed read from \(Case.show(bytes)) does not read back")
    } catch {
      fuzz.check(error.status == .usage, "status \(error.status.rawValue), not 2: \(Case.show(bytes))")
      fuzz.check(
        !(error.message + (error.fix ?? "")).contains(secret), "the error quotes the secret: \(error.message)")
    }
  }

  /// Encodes and decodes back; with lower case, spaces and padding too; garbage is an error.
  static func base32(_ key: [UInt8], _ fuzz: inout Case) {
    let encoded = Base32.encode(key)
    guard !key.isEmpty else { return }
    fuzz.check((try? Base32.decode(encoded)) == key, "base32 of \(key) does not decode back")
    var spelled = encoded.map { fuzz.oneIn(2) && $0 >= 0x41 ? $0 | 0x20 : $0 }
    for _ in 0..<fuzz.below(4) { spelled.insert(0x20, at: fuzz.below(spelled.count + 1)) }
    let characters = encoded.count
    spelled += Array(repeating: 0x3D, count: (8 - characters % 8) % 8)
    fuzz.check((try? Base32.decode(spelled)) == key, "\(Case.show(spelled)) does not decode to \(key)")
    let garbage = fuzz.mutated(spelled, pieces: pieces)
    if let decoded = try? Base32.decode(garbage) {
      fuzz.check(decoded.count <= garbage.count, "\(Case.show(garbage)) decodes to more bytes than it has")
    }
  }

  static func same(_ one: OTPSeed, _ other: OTPSeed) -> Bool {
    one.key == other.key && one.algorithm == other.algorithm && one.digits == other.digits
      && one.period == other.period && one.label == other.label && one.issuer == other.issuer
  }

  static func text(_ secret: SecretBytes) -> String { secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}
