import AccountsContract
import AccountsSystem
import SecretMemory

/// RFC 6238 time-based one-time codes, with libgcrypt's HMAC unless another is handed in.
public enum TOTP {
  /// HMAC of `message` under `key` with `algorithm`: the digest's bytes.
  public typealias HMAC = (_ algorithm: OTPAlgorithm, _ key: SecretBytes, _ message: [UInt8]) throws -> [UInt8]

  /// libgcrypt's (`Cryptography`), loaded on first use: a one-time code loads neither
  /// libsecret nor GLib.
  public static func libgcrypt(_ algorithm: OTPAlgorithm, _ key: SecretBytes, _ message: [UInt8]) throws -> [UInt8] {
    let hash: Cryptography.Hash =
      switch algorithm {
      case .sha1: .sha1
      case .sha256: .sha256
      case .sha512: .sha512
      }
    return try key.withUnsafeBytes { key throws(Cryptography.Unavailable) in
      try Cryptography.hmac(hash, key: key, data: message)
    }
  }

  /// The code of `seed` at `unixSeconds` (not before 1970), as many digits as the seed says,
  /// zeros in front kept: RFC 4226's dynamic truncation of HMAC(key, T), T the number of
  /// periods since 1970 as 8 big-endian bytes.
  public static func code(_ seed: OTPSeed, at unixSeconds: Int64, hmac: HMAC = libgcrypt) throws -> String {
    let counter = UInt64(max(unixSeconds, 0)) / UInt64(period(seed))
    let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * $0)) }
    var digest = try hmac(seed.algorithm, seed.key, message)
    defer { wipe(&digest) }
    guard digest.count >= 20 else { throw TOTPError.shortDigest(digest.count) }
    let offset = Int(digest[digest.count - 1] & 0x0F)
    let binary =
      UInt32(digest[offset] & 0x7F) << 24 | UInt32(digest[offset + 1]) << 16 | UInt32(digest[offset + 2]) << 8
      | UInt32(digest[offset + 3])
    // RFC 4226 reads 31 bits: past 9 digits the code is the whole number, zeros in front.
    let digits = min(max(seed.digits, 1), 10)
    var modulus: UInt64 = 1
    for _ in 0..<digits { modulus *= 10 }
    let number = String(UInt64(binary) % modulus)
    return String(repeating: "0", count: digits - number.count) + number
  }

  /// Seconds from `unixSeconds` until the code changes (1...period).
  public static func secondsLeft(_ seed: OTPSeed, at unixSeconds: Int64) -> Int {
    let period = Int64(period(seed))
    return Int(period - ((unixSeconds % period) + period) % period)
  }

  /// The seed's period, at least a second (a URI's is checked; a seed built in code may not be).
  private static func period(_ seed: OTPSeed) -> Int { max(seed.period, 1) }

  /// Less than this many milliseconds left in a period, a login sends the next period's code.
  public static let loginMarginMilliseconds: Int64 = 2000

  /// The code to send in a login at `unixMilliseconds` (the wall clock with its fraction: at
  /// 28.2 s into a 30 s period, 1.8 s are left, not 2): the current one, or the next period's
  /// when less than `loginMarginMilliseconds` of this one are left, so the code does not turn
  /// stale on its way to the backend (backends accept a period of skew, RFC 6238 section 5.2).
  /// A login sends one code and is never retried across a boundary.
  public static func loginCode(
    _ seed: OTPSeed, atMilliseconds unixMilliseconds: Int64, hmac: HMAC = libgcrypt
  ) throws -> String {
    let now = max(unixMilliseconds, 0)
    let periodMilliseconds = Int64(period(seed)) * 1000
    let left = periodMilliseconds - now % periodMilliseconds
    return try code(seed, at: (left < loginMarginMilliseconds ? now + left : now) / 1000, hmac: hmac)
  }

  /// When the code of `unixSeconds` stops being the current one.
  public static func expiry(_ seed: OTPSeed, at unixSeconds: Int64) -> Int64 {
    unixSeconds + Int64(secondsLeft(seed, at: unixSeconds))
  }
}

/// The HMAC gave fewer bytes than any of SHA-1, SHA-256, SHA-512 (the library failed).
public enum TOTPError: UserFacingError, Equatable {
  case shortDigest(Int)

  public var status: ExitStatus { .failure }
  public var message: String {
    switch self {
    case .shortDigest(let count): "the HMAC gave \(count) bytes, too few for a one-time code"
    }
  }
  public var fix: String? {
    "reinstall libgcrypt (Debian: apt-get install --reinstall libgcrypt20)"
  }
}
