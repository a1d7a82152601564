import AccountsContract
import AccountsSystem
import SecretMemory

/// The HMAC a TOTP code is computed with (RFC 6238 §1.2).
public enum OTPAlgorithm: String, Sendable, CaseIterable {
  case sha1 = "SHA1"
  case sha256 = "SHA256"
  case sha512 = "SHA512"
}

/// A TOTP seed: the key and how codes are made from it. Read from an `otpauth://totp/` URI or a
/// bare base32 seed (SHA1, 6 digits, 30 s); kept in the Secret Service as `canonicalText`, the
/// URI with every parameter written out, so nothing of the original is lost and `export` can
/// write it back.
public struct OTPSeed: Sendable {
  /// The shared secret, decoded.
  public let key: SecretBytes
  public var algorithm: OTPAlgorithm
  public var digits: Int
  public var period: Int
  /// The URI's label ("corp:alice"), "" for a bare seed.
  public var label: String
  public var issuer: String?

  /// The longest key taken (a SHA-512 key of RFC 6238 is 64 bytes; sites use 10 to 32).
  public static let maximumKeyLength = 1024
  /// The shortest key taken: 80 bits, 16 base32 characters, what common authenticators use
  /// (RFC 4226 section 4 asks for 128 and recommends 160). A shorter one is a seed copied in
  /// part, or one weak enough to guess.
  public static let minimumKeyLength = 10

  public init(
    key: SecretBytes, algorithm: OTPAlgorithm = .sha1, digits: Int = 6, period: Int = 30, label: String = "",
    issuer: String? = nil
  ) {
    self.key = key
    self.algorithm = algorithm
    self.digits = digits
    self.period = period
    self.label = label
    self.issuer = issuer
  }

  /// Reads `text`: an `otpauth://totp/...` URI, KeeOTP's `key=BASE32&size=6&step=30` (as
  /// KeePassXC may keep it) or a bare base32 seed, with spaces, tabs and line ends around it
  /// ignored. The errors never quote the text.
  public init(parsing text: SecretBytes) throws(OTPSeedError) {
    var bytes = text.withUnsafeBytes { Array($0) }
    defer { wipe(&bytes) }
    let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else {
      throw .base32(.empty)
    }
    var trimmed = Array(bytes[first...last])
    defer { wipe(&trimmed) }
    var uri: OTPAuthURI? =
      if OTPAuthURI.looksLikeURI(trimmed) {
        try OTPAuthURI(trimmed)
      } else if OTPAuthURI.looksLikeKeeOTP(trimmed) {
        try OTPAuthURI(keeOTP: trimmed)
      } else {
        nil
      }
    defer { if uri != nil { wipe(&uri!.secret) } }
    if let parts = uri {
      try self.init(base32: parts.secret)
      algorithm = parts.algorithm
      digits = parts.digits
      period = parts.period
      label = parts.label
      issuer = parts.issuer
    } else {
      try self.init(base32: trimmed)
    }
  }

  private init(base32: [UInt8]) throws(OTPSeedError) {
    var key: [UInt8]
    do throws(Base32Error) { key = try Base32.decode(base32) } catch { throw .base32(error) }
    guard key.count <= Self.maximumKeyLength else {
      wipe(&key)
      throw .tooLong(limit: Self.maximumKeyLength)
    }
    guard key.count >= Self.minimumKeyLength else {
      wipe(&key)
      throw .tooShort(minimum: Self.minimumKeyLength)
    }
    self.init(key: SecretBytes(consuming: &key))
  }

  /// `otpauth://totp/LABEL?secret=BASE32&issuer=...&algorithm=SHA1&digits=6&period=30`: what
  /// the keyring keeps and `export --with-passwords` writes.
  public var canonicalText: SecretBytes {
    let head = Array("otpauth://totp/\(OTPAuthURI.percentEncoded(label, label: true))?secret=".utf8)
    let tail = Array(
      ((issuer.map { "&issuer=\(OTPAuthURI.percentEncoded($0, label: false))" } ?? "")
        + "&algorithm=\(algorithm.rawValue)&digits=\(digits)&period=\(period)").utf8)
    // One buffer of the final size: growing it would leave copies of the secret behind.
    var text: [UInt8] = []
    text.reserveCapacity(head.count + (key.count * 8 + 4) / 5 + tail.count)
    text += head
    var secret = key.withUnsafeBytes { Base32.encode($0) }
    text += secret
    wipe(&secret)
    text += tail
    return SecretBytes(consuming: &text)
  }
}

/// Why a seed was refused: exit 2, never with the seed in the message.
public enum OTPSeedError: UserFacingError, Equatable {
  case base32(Base32Error)
  case uri(String)
  case tooLong(limit: Int)
  case tooShort(minimum: Int)

  public var status: ExitStatus { .usage }

  public var message: String {
    switch self {
    case .base32(let error): "not a TOTP seed: \(error.message)"
    case .uri(let problem): "not a TOTP seed URI: \(problem)"
    case .tooLong(let limit): "not a TOTP seed: its key is longer than \(limit) bytes"
    case .tooShort(let minimum):
      "not a TOTP seed: its key is shorter than \(minimum) bytes (\((minimum * 8 + 4) / 5) base32 characters), "
        + "too short to be safe"
    }
  }

  public var fix: String? {
    switch self {
    case .tooShort:
      "check that the whole seed was copied; a site whose seed is this short should issue a new one"
    default:
      "give the otpauth://totp/... URI of the site's QR code, or its base32 seed (letters A-Z and digits 2-7)"
    }
  }
}
