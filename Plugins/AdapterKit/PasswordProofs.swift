import SecretMemory

/// How the plain adapter's password field carries the password (the `encoding` setting).
public enum PasswordEncoding: Sendable {
  /// The password as is.
  case plain
  /// The password in standard base64 (with padding).
  case base64
  /// md5hex(password).
  case md5
  /// md5hex(password + salt).
  case md5Salt(salt: String)
  /// md5hex(hmac_md5hex(key: hmacKey, message: password)).
  case md5HMAC(key: SecretBytes)

  /// Whether the field lets anyone who sees it recover the password.
  public var isRecoverable: Bool {
    switch self {
    case .plain, .base64: true
    case .md5, .md5Salt, .md5HMAC: false
    }
  }

  /// What the password field carries for `password`. Digests come from `host`.
  public func encode(_ password: SecretBytes, host: any HostServices) throws(AdapterError)
    -> SecretBytes
  {
    switch self {
    case .plain:
      return password
    case .base64:
      return Base64.encode(password)
    case .md5:
      return try host.md5Hex(password)
    case .md5Salt(let salt):
      return try host.md5Hex(SecretBytes(concatenating: [password, salt]))
    case .md5HMAC(let key):
      return try host.md5Hex(host.hmacMD5Hex(key: key, message: password))
    }
  }
}

/// The hmac adapter's proof, which replaces the password on the wire:
/// `k = md5hex(hmac_key)`, `base = hmac_md5hex(k, password)`,
/// `proof = hmac_md5hex(k, base + minute)`.
public enum HMACProof {
  public static func make(
    password: SecretBytes, key: SecretBytes, minute: String, host: any HostServices
  ) throws(AdapterError) -> SecretBytes {
    let derivedKey = try host.md5Hex(key)
    let base = try host.hmacMD5Hex(key: derivedKey, message: password)
    return try host.hmacMD5Hex(
      key: derivedKey, message: SecretBytes(concatenating: [base, minute]))
  }
}

/// The signed adapter's signature over a request's fields.
public enum Signature {
  /// `join("&", sorted(k=v for every field, plus private_key=KEY))`, sorted bytewise on the
  /// UTF-8 of each `k=v`, over the raw (not percent-encoded) values.
  public static func signingInput(_ fields: [FormField], privateKey: SecretBytes) -> SecretBytes {
    let entries =
      fields.map { SecretBytes(concatenating: [$0.name, "=", $0.value]) }
      + [SecretBytes(concatenating: ["private_key=", privateKey])]
    let sorted = entries.sorted { left, right in
      left.withBytes { l in right.withBytes { r in l.lexicographicallyPrecedes(r) } }
    }
    var parts: [any ByteSource] = []
    for (index, entry) in sorted.enumerated() {
      if index > 0 { parts.append("&") }
      parts.append(entry)
    }
    return SecretBytes(concatenating: parts)
  }

  /// md5hex of the signing input.
  public static func sign(_ fields: [FormField], privateKey: SecretBytes, host: any HostServices)
    throws(AdapterError) -> String
  {
    let digest = try host.md5Hex(signingInput(fields, privateKey: privateKey))
    return String(decoding: digest.unprotectedBytes, as: UTF8.self)
  }
}

/// Standard base64 (RFC 4648 §4) with padding, into secret bytes.
public enum Base64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  public static func encode(_ data: some ByteSource) -> SecretBytes {
    let count = (data.byteCount + 2) / 3 * 4
    return SecretBytes(count: count) { output in
      data.withBytes { input in
        var written = 0
        var index = 0
        while index < input.count {
          let remaining = input.count - index
          let b0 = UInt32(input[index])
          let b1 = remaining > 1 ? UInt32(input[index + 1]) : 0
          let b2 = remaining > 2 ? UInt32(input[index + 2]) : 0
          let group = b0 << 16 | b1 << 8 | b2
          output[written] = alphabet[Int(group >> 18 & 0x3F)]
          output[written + 1] = alphabet[Int(group >> 12 & 0x3F)]
          output[written + 2] = remaining > 1 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
          output[written + 3] = remaining > 2 ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "=")
          written += 4
          index += 3
        }
      }
    }
  }
}
