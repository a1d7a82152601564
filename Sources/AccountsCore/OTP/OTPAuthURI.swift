import AccountsContract
import SecretMemory
import AccountsSystem

/// The parts of an `otpauth://totp/LABEL?secret=...&issuer=...&algorithm=...&digits=...&period=...`
/// URI (Google Authenticator's key URI format), checked: the type is `totp` (`hotp` is refused:
/// a counter cannot be kept in step here), `secret` is given once, each other known parameter
/// at most once, `algorithm` is SHA1, SHA256 or SHA512 (any case), `digits` 6 to 8, `period`
/// 1 to 86400 seconds. Unknown parameters (`image`, `color`) are ignored. Label and values are
/// percent-decoded (`+` in a value is a space).
struct OTPAuthURI {
  var label: String
  var issuer: String?
  /// The `secret` parameter, percent-decoded: base32, still to be decoded. Wiped by the owner.
  var secret: [UInt8]
  var algorithm: OTPAlgorithm = .sha1
  var digits = 6
  var period = 30

  static let scheme = Array("otpauth://".utf8)

  /// Whether `text` starts like a URI (any case), rather than a bare base32 seed.
  static func looksLikeURI(_ text: some Collection<UInt8>) -> Bool {
    text.count >= scheme.count && zip(text, scheme).allSatisfy { lowercase($0) == $1 }
  }

  init(_ text: [UInt8]) throws(OTPSeedError) {
    var rest = text.dropFirst(Self.scheme.count)
    guard let slash = rest.firstIndex(of: 0x2F) else { throw .uri("it has no type (otpauth://totp/LABEL?secret=...)") }
    let type = String(decoding: rest[rest.startIndex..<slash].map(Self.lowercase), as: UTF8.self)
    switch type {
    case "totp": break
    case "hotp": throw .uri("it is an HOTP (counter) seed; accounts computes time-based (TOTP) codes only")
    default: throw .uri("its type is not totp (otpauth://totp/...)")
    }
    rest = rest[rest.index(after: slash)...]
    if let hash = rest.firstIndex(of: 0x23) { rest = rest[..<hash] }  // a fragment means nothing here
    let question = rest.firstIndex(of: 0x3F) ?? rest.endIndex
    label = String(
      decoding: try Self.percentDecoded(rest[..<question], plusIsSpace: false, what: "the label"), as: UTF8.self)
    secret = []
    let query = question == rest.endIndex ? rest[question...] : rest[rest.index(after: question)...]
    try read(query, names: Self.uriNames)
  }

  /// KeeOTP's form, which KeePassXC keeps for seeds it imported from it:
  /// `key=BASE32&size=6&step=30&otpHashMode=SHA256`.
  init(keeOTP text: [UInt8]) throws(OTPSeedError) {
    label = ""
    secret = []
    try read(text[...], names: ["key": "secret", "size": "digits", "step": "period", "otphashmode": "algorithm"])
  }

  static let uriNames = [
    "secret": "secret", "issuer": "issuer", "algorithm": "algorithm", "digits": "digits", "period": "period",
    "encoder": "encoder",
  ]

  /// Whether `text` starts like KeeOTP's form (`key=`, any case).
  static func looksLikeKeeOTP(_ text: some Collection<UInt8>) -> Bool {
    text.count > 4 && zip(text, Array("key=".utf8)).allSatisfy { lowercase($0) == $1 }
  }

  /// The parameters of `query` (`&`-separated); `names` maps each one taken (in lower case) to
  /// its meaning, the others are ignored.
  private mutating func read(_ query: ArraySlice<UInt8>, names: [String: String]) throws(OTPSeedError) {
    var seen: Set<String> = []
    for pair in query.split(separator: 0x26, omittingEmptySubsequences: true) {
      let equals = pair.firstIndex(of: 0x3D) ?? pair.endIndex
      let given = String(decoding: pair[..<equals].map(Self.lowercase), as: UTF8.self)
      guard let name = names[given] else { continue }
      guard seen.insert(name).inserted else {
        wipe(&secret)
        throw .uri("it gives the parameter '\(given)' twice")
      }
      let rawValue = equals == pair.endIndex ? pair[equals...] : pair[pair.index(after: equals)...]
      var value = try Self.percentDecoded(rawValue, plusIsSpace: true, what: "the parameter '\(given)'")
      switch name {
      case "secret":
        secret = value
        continue
      case "issuer": issuer = String(decoding: value, as: UTF8.self)
      case "encoder":
        // KeePassXC's `encoder=steam`: Steam's codes are letters, not RFC 6238's digits.
        guard value.isEmpty else {
          throw .uri(
            "its encoder (\(Names.printable(String(decoding: value, as: UTF8.self), limit: 20))) is not RFC 6238's")
        }
      case "algorithm":
        switch String(decoding: value, as: UTF8.self).uppercased() {
        case "SHA1": algorithm = .sha1
        case "SHA256": algorithm = .sha256
        case "SHA512": algorithm = .sha512
        default: throw .uri("its algorithm is none of SHA1, SHA256, SHA512")
        }
      case "digits":
        guard let number = Self.number(value), (6...8).contains(number) else {
          throw .uri("its digits are not 6, 7 or 8")
        }
        digits = number
      default:
        guard let number = Self.number(value), (1...86_400).contains(number) else {
          throw .uri("its period is not a whole number of seconds from 1 to 86400")
        }
        period = number
      }
      wipe(&value)
    }
    guard !secret.isEmpty else { throw .uri("it has no secret parameter") }
  }

  private static func number(_ bytes: [UInt8]) -> Int? {
    guard !bytes.isEmpty, bytes.count <= 6, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return Int(String(decoding: bytes, as: UTF8.self))
  }

  static func lowercase(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }

  /// `%XX` decoded; a `%` not followed by two hex digits is refused.
  static func percentDecoded(
    _ bytes: ArraySlice<UInt8>, plusIsSpace: Bool, what: String
  ) throws(OTPSeedError) -> [UInt8] {
    var output: [UInt8] = []
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      if byte == 0x25 {
        guard bytes.endIndex - index >= 3, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else {
          wipe(&output)
          throw .uri("\(what) has a '%' that is not followed by two hex digits")
        }
        output.append(high << 4 | low)
        index += 3
      } else {
        output.append(plusIsSpace && byte == 0x2B ? 0x20 : byte)
        index += 1
      }
    }
    return output
  }

  private static func hex(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  /// `text` percent-encoded for a URI's label or a query value: every byte but the unreserved
  /// ones of RFC 3986 (and `:` and `@` in a label, where they separate issuer and account).
  static func percentEncoded(_ text: String, label: Bool) -> String {
    var output = ""
    for byte in text.utf8 {
      switch byte {
      case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E:
        output.unicodeScalars.append(Unicode.Scalar(byte))
      case 0x3A where label, 0x40 where label: output.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        output += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
      }
    }
    return output
  }
}
