import CAccountsAdapter

/// The host's acc_host in Swift: each service read only when the host's `size` covers it, and
/// a missing one reported as an error rather than called through NULL.
struct CHost: HostServices {
  private let host: SizedStruct<acc_host>?

  init(_ pointer: UnsafePointer<acc_host>?) {
    host = pointer.map { SizedStruct($0) }
  }

  func now() throws(AdapterError) -> Int64 {
    try service(\.now, "now")()
  }

  func localUTCOffset(at time: Int64) throws(AdapterError) -> Int32 {
    try service(\.local_utc_offset, "local_utc_offset")(time)
  }

  func randomBytes(count: Int) throws(AdapterError) -> [UInt8] {
    let fill = try service(\.random_bytes, "random_bytes")
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBufferPointer { buffer in
      if let base = buffer.baseAddress { fill(base, buffer.count) }
    }
    return bytes
  }

  func digest(_ algorithm: DigestAlgorithm, of data: UnsafeRawBufferPointer)
    throws(AdapterError) -> [UInt8]
  {
    let digest = try service(\.digest, "digest")
    return try Self.collect(algorithm) { out, capacity in
      digest(algorithm.rawValue, Self.start(data), data.count, out, capacity)
    }
  }

  func hmac(
    _ algorithm: DigestAlgorithm, key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
  ) throws(AdapterError) -> [UInt8] {
    let hmac = try service(\.hmac, "hmac")
    return try Self.collect(algorithm) { out, capacity in
      hmac(
        algorithm.rawValue, Self.start(key), key.count, Self.start(data), data.count, out, capacity)
    }
  }

  func log(_ level: LogLevel, _ message: String) {
    guard let log = host?.field(\.log) ?? nil else { return }
    var message = message
    message.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { characters in
        log(level.rawValue, acc_string(bytes: characters.baseAddress, length: characters.count))
      }
    }
  }

  private func service<Function>(_ key: KeyPath<acc_host, Function?>, _ name: String)
    throws(AdapterError) -> Function
  {
    guard let function = host?.field(key) ?? nil else {
      throw AdapterError("the host lends no \(name) service")
    }
    return function
  }

  /// A non-NULL pointer to the bytes (hosts may not expect NULL even with length 0).
  private static func start(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
    guard let base = bytes.baseAddress else { return emptyBytes }
    return base.assumingMemoryBound(to: UInt8.self)
  }

  nonisolated(unsafe) private static let emptyBytes: UnsafePointer<UInt8> = {
    let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return UnsafePointer(pointer)
  }()

  /// Calls the host with a 64-byte buffer and takes what it wrote; 0 means it cannot.
  private static func collect(
    _ algorithm: DigestAlgorithm, _ call: (UnsafeMutablePointer<UInt8>, Int) -> Int
  ) throws(AdapterError) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 64)
    let length = out.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { call($0, buffer.count) } ?? 0
    }
    guard length > 0, length <= out.count else {
      throw AdapterError("the host cannot compute \(algorithm.name) digests")
    }
    return Array(out.prefix(length))
  }
}

extension DigestAlgorithm {
  var name: String {
    switch self {
    case .md5: "MD5"
    case .sha1: "SHA-1"
    case .sha256: "SHA-256"
    }
  }
}
