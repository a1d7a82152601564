import AccountsContract
import AccountsSystem
import CAccountsAdapter
import Glibc

/// The services the host lends every adapter (`acc_host`): the clock, randomness, and
/// libgcrypt's digests and HMACs (`Cryptography`), so adapters carry no crypto of their own. This is the
/// host's side of the table; the built-in adapters see it through AdapterKit's `HostServices`.
///
/// Sessions on several threads call them at once: `standard` is built once and never written
/// again, and each service keeps no state between calls (localtime_r, getrandom, a libgcrypt
/// digest or HMAC of its own per call, one write(2) per log line).
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

  static func hash(_ algorithm: Int32) -> Cryptography.Hash? {
    switch algorithm {
    case ACC_DIGEST_MD5: .md5
    case ACC_DIGEST_SHA1: .sha1
    case ACC_DIGEST_SHA256: .sha256
    default: nil
    }
  }

  /// The digest's length, or 0 for an unknown algorithm, a `capacity` too small, or libgcrypt
  /// missing (the adapter's step then fails as it would on any refused service).
  public static func digest(
    _ algorithm: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int
  ) -> Int {
    guard let hash = hash(algorithm), let out, capacity >= hash.byteCount else { return 0 }
    do throws(Cryptography.Unavailable) {
      try Cryptography.digest(
        hash, of: UnsafeRawBufferPointer(start: length > 0 ? data : nil, count: length),
        into: UnsafeMutableRawBufferPointer(start: out, count: capacity))
    } catch {
      return 0
    }
    return hash.byteCount
  }

  /// The HMAC's length, or 0 as for `digest`.
  public static func hmac(
    _ algorithm: Int32, _ key: UnsafePointer<UInt8>?, _ keyLength: Int, _ data: UnsafePointer<UInt8>?,
    _ length: Int, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int
  ) -> Int {
    guard let hash = hash(algorithm), let out, capacity >= hash.byteCount else { return 0 }
    do throws(Cryptography.Unavailable) {
      try Cryptography.hmac(
        hash, key: UnsafeRawBufferPointer(start: keyLength > 0 ? key : nil, count: keyLength),
        data: UnsafeRawBufferPointer(start: length > 0 ? data : nil, count: length),
        into: UnsafeMutableRawBufferPointer(start: out, count: capacity))
    } catch {
      return 0
    }
    return hash.byteCount
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
