import SecretMemory

/// Digest algorithms the host computes (ACC_DIGEST_*).
public enum DigestAlgorithm: Int32, Sendable {
  case md5 = 1
  case sha1 = 2
  case sha256 = 3
}

/// Log levels (ACC_LOG_*).
public enum LogLevel: Int32, Sendable {
  case debug = 1
  case info = 2
  case warning = 3
}

/// The services the host lends an adapter: clock, randomness, digests, HMAC, logging.
///
/// Adapters never compute a digest themselves: the host's are tested and constant, and an
/// adapter stays a plain encoder. Tests swap in a double that records what it was asked.
public protocol HostServices {
  /// Seconds since 1970-01-01 00:00:00 UTC.
  func now() throws(AdapterError) -> Int64
  /// Seconds east of UTC of the user's local time zone at `time`.
  func localUTCOffset(at time: Int64) throws(AdapterError) -> Int32
  /// `count` cryptographically random bytes.
  func randomBytes(count: Int) throws(AdapterError) -> [UInt8]
  /// The digest of `data`.
  func digest(_ algorithm: DigestAlgorithm, of data: UnsafeRawBufferPointer)
    throws(AdapterError) -> [UInt8]
  /// The HMAC of `data` with `key`.
  func hmac(
    _ algorithm: DigestAlgorithm, key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
  ) throws(AdapterError) -> [UInt8]
  /// A diagnostic line, shown on stderr when ACCOUNTS_DEBUG is set; never a secret.
  func log(_ level: LogLevel, _ message: String)
}

extension HostServices {
  /// The MD5 of `data` in lowercase hex, as secret bytes (an MD5 of a password is as good as
  /// the password to a backend that accepts it).
  public func md5Hex(_ data: some ByteSource) throws(AdapterError) -> SecretBytes {
    let digest = try data.withBytes { bytes in
      Result { () throws(AdapterError) in try self.digest(.md5, of: bytes) }
    }.get()
    return Hex.lowercase(digest)
  }

  /// The HMAC-MD5 of `message` with `key`, in lowercase hex.
  public func hmacMD5Hex(key: some ByteSource, message: some ByteSource) throws(AdapterError)
    -> SecretBytes
  {
    let digest = try key.withBytes { keyBytes in
      message.withBytes { messageBytes in
        Result { () throws(AdapterError) in
          try self.hmac(.md5, key: keyBytes, data: messageBytes)
        }
      }
    }.get()
    return Hex.lowercase(digest)
  }
}

/// Hexadecimal digits.
public enum Hex {
  static let lowerDigits = Array("0123456789abcdef".utf8)
  static let upperDigits = Array("0123456789ABCDEF".utf8)

  /// `bytes` in lowercase hex, two digits a byte.
  public static func lowercase(_ bytes: [UInt8]) -> SecretBytes {
    SecretBytes(count: bytes.count * 2) { buffer in
      for (index, byte) in bytes.enumerated() {
        buffer[2 * index] = lowerDigits[Int(byte >> 4)]
        buffer[2 * index + 1] = lowerDigits[Int(byte & 0x0F)]
      }
    }
  }
}
