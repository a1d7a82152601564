import SecretMemory

@testable import AdapterKit

/// A host double: a settable clock and randomness, and a fake digest that records its input.
///
/// The fake "digest" is the input's first 16 bytes, zero-padded, so a test can read back from
/// the hex what the adapter asked to digest; the real MD5 is the host's business, tested there
/// and end to end against the test backend.
final class FakeHost: HostServices {
  var clock: Int64 = 0
  var offset: Int32 = 0
  var random: [UInt8] = []
  private(set) var randomRequests: [Int] = []
  private(set) var digestInputs: [String] = []
  private(set) var hmacInputs: [(key: String, data: String)] = []
  private(set) var offsetQueries: [Int64] = []

  func now() throws(AdapterError) -> Int64 { clock }

  func localUTCOffset(at time: Int64) throws(AdapterError) -> Int32 {
    offsetQueries.append(time)
    return offset
  }

  func randomBytes(count: Int) throws(AdapterError) -> [UInt8] {
    randomRequests.append(count)
    let bytes = Array(random.prefix(count))
    random.removeFirst(bytes.count)
    return bytes + [UInt8](repeating: 255, count: count - bytes.count)
  }

  func digest(_ algorithm: DigestAlgorithm, of data: UnsafeRawBufferPointer)
    throws(AdapterError) -> [UInt8]
  {
    digestInputs.append(String(decoding: data, as: UTF8.self))
    return Self.fake(data)
  }

  func hmac(
    _ algorithm: DigestAlgorithm, key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
  ) throws(AdapterError) -> [UInt8] {
    hmacInputs.append(
      (String(decoding: key, as: UTF8.self), String(decoding: data, as: UTF8.self)))
    return Self.fake(data)
  }

  func log(_ level: LogLevel, _ message: String) {}

  /// What the fake digest of `text` looks like in lowercase hex.
  static func fakeHex(_ text: String) -> String {
    Array(text.utf8).withUnsafeBytes { fake($0) }.map(hexByte).joined()
  }

  private static func fake(_ data: UnsafeRawBufferPointer) -> [UInt8] {
    Array(data.prefix(16)) + [UInt8](repeating: 0, count: max(16 - data.count, 0))
  }

  private static func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
  }
}

/// The message of the error `body` throws, or nil when it throws none.
func errorMessage<T>(_ body: () throws(AdapterError) -> T) -> String? {
  do {
    _ = try body()
    return nil
  } catch {
    return error.message
  }
}

extension SecretBytes {
  /// The bytes as text, for expectations.
  var text: String { String(decoding: unprotectedBytes, as: UTF8.self) }
}

extension Response {
  /// A response whose body is `json`.
  static func json(_ json: String, status: Int32 = 200) -> Response {
    Response(status: status, body: Array(json.utf8))
  }
}
