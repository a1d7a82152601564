import AccountsContract
import AccountsSystem
import CAccountsAdapter
import CGLib
import Glibc

/// The services the host lends every adapter (`acc_host`): the clock, randomness, and GLib's
/// GChecksum/GHmac for digests and HMAC, so adapters carry no crypto of their own. This is the
/// host's side of the table; the built-in adapters see it through AdapterKit's `HostServices`.
///
/// Sessions on several threads call them at once: `standard` is built once and never written
/// again, and each service keeps no state between calls (localtime_r, getrandom, a GChecksum
/// or GHmac of its own per call, one write(2) per log line).
public enum HostServiceTable {
  /// The real services. Tests build their own `acc_host` from `digest`/`hmac` and a fixed clock.
  nonisolated(unsafe) public static let standard: UnsafePointer<acc_host> = {
    let host = UnsafeMutablePointer<acc_host>.allocate(capacity: 1)
    host.initialize(to: acc_host(
      size: UInt32(MemoryLayout<acc_host>.size),
      now: { Int64(time(nil)) },
      local_utc_offset: { when in localOffset(at: when) },
      random_bytes: { buffer, length in randomBytes(buffer, length) },
      digest: { algorithm, data, length, out, capacity in
        digest(algorithm, data, length, out, capacity)
      },
      hmac: { algorithm, key, keyLength, data, length, out, capacity in
        hmac(algorithm, key, keyLength, data, length, out, capacity)
      },
      log: { level, message in log(level, message) }))
    return UnsafePointer(host)
  }()

  /// Seconds east of UTC of the local time zone at `when`.
  public static func localOffset(at when: Int64) -> Int32 {
    var seconds = time_t(when)
    var parts = tm()
    guard localtime_r(&seconds, &parts) != nil else { return 0 }
    return Int32(parts.tm_gmtoff)
  }

  /// From the kernel's pool (`fillRandom`).
  public static func randomBytes(_ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int) {
    guard let buffer, length > 0 else { return }
    fillRandom(UnsafeMutableRawBufferPointer(start: buffer, count: length))
  }

  static func checksumType(_ algorithm: Int32) -> GChecksumType? {
    switch algorithm {
    case ACC_DIGEST_MD5: G_CHECKSUM_MD5
    case ACC_DIGEST_SHA1: G_CHECKSUM_SHA1
    case ACC_DIGEST_SHA256: G_CHECKSUM_SHA256
    default: nil
    }
  }

  public static func digest(
    _ algorithm: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int
  ) -> Int {
    guard let type = checksumType(algorithm), let out, let checksum = g_checksum_new(type) else { return 0 }
    defer { g_checksum_free(checksum) }
    let size = Int(g_checksum_type_get_length(type))
    guard capacity >= size else { return 0 }
    if length > 0, let data { g_checksum_update(checksum, data, length) }
    var written = gsize(size)
    g_checksum_get_digest(checksum, out, &written)
    return Int(written)
  }

  public static func hmac(
    _ algorithm: Int32, _ key: UnsafePointer<UInt8>?, _ keyLength: Int, _ data: UnsafePointer<UInt8>?,
    _ length: Int, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int
  ) -> Int {
    guard let type = checksumType(algorithm) else { return 0 }
    return hmac(type, key, keyLength, data, length, out, capacity)
  }

  /// The HMACs the host computes for itself (one-time codes): SHA-512 too, which the adapter
  /// ABI does not offer.
  public enum HMACAlgorithm: Sendable {
    case sha1, sha256, sha512

    var checksumType: GChecksumType {
      switch self {
      case .sha1: G_CHECKSUM_SHA1
      case .sha256: G_CHECKSUM_SHA256
      case .sha512: G_CHECKSUM_SHA512
      }
    }
  }

  public static func hmac(
    _ algorithm: HMACAlgorithm, _ key: UnsafePointer<UInt8>?, _ keyLength: Int, _ data: UnsafePointer<UInt8>?,
    _ length: Int, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int
  ) -> Int {
    hmac(algorithm.checksumType, key, keyLength, data, length, out, capacity)
  }

  private static func hmac(
    _ type: GChecksumType, _ key: UnsafePointer<UInt8>?, _ keyLength: Int, _ data: UnsafePointer<UInt8>?,
    _ length: Int, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int
  ) -> Int {
    guard let out else { return 0 }
    let size = Int(g_checksum_type_get_length(type))
    guard capacity >= size else { return 0 }
    // g_hmac_new wants a non-NULL key even when it is empty.
    var empty: UInt8 = 0
    let hmac = withUnsafePointer(to: &empty) { emptyKey in
      g_hmac_new(type, key ?? emptyKey, gsize(keyLength))
    }
    guard let hmac else { return 0 }
    defer { g_hmac_unref(hmac) }
    if length > 0, let data { g_hmac_update(hmac, data, length) }
    var written = gsize(size)
    g_hmac_get_digest(hmac, out, &written)
    return Int(written)
  }

  /// Adapter log lines go to stderr when ACCOUNTS_DEBUG is set, control characters replaced.
  static func log(_ level: Int32, _ message: acc_string) {
    guard getenv("ACCOUNTS_DEBUG") != nil, let bytes = message.bytes else { return }
    let length = min(message.length, 4096)
    let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
    let name = switch level {
    case ACC_LOG_DEBUG: "debug"
    case ACC_LOG_INFO: "info"
    case ACC_LOG_WARNING: "warning"
    default: "log"
    }
    let line = "accounts: adapter \(name): \(Names.printable(text, limit: 400))\n"
    let output = Array(line.utf8)
    // The command's own stderr: fd 2 is where adapters' raw writes go (AdapterContainment).
    _ = output.withUnsafeBytes { write(AdapterContainment.messageDescriptor, $0.baseAddress, $0.count) }
  }
}
