import SecretMemory

extension SecretBytes {
  /// A copy of `bytes`.
  public convenience init(_ bytes: some ByteSource) {
    self.init(count: bytes.byteCount) { target in
      bytes.withBytes { source in copy(source, into: target, at: 0) }
    }
  }

  /// The bytes of `parts`, one after the other, in one buffer.
  public convenience init(concatenating parts: [any ByteSource]) {
    let count = parts.reduce(0) { $0 + $1.byteCount }
    self.init(count: count) { target in
      var offset = 0
      for part in parts {
        part.withBytes { source in copy(source, into: target, at: offset) }
        offset += part.byteCount
      }
    }
  }
}

private func copy(_ source: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer, at offset: Int) {
  guard let from = source.baseAddress, let to = target.baseAddress, !source.isEmpty else {
    return
  }
  (to + offset).copyMemory(from: from, byteCount: source.count)
}

extension SecretBytes: ByteSource {
  public var byteCount: Int { count }

  public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    withUnsafeBytes(body)
  }
}

/// Something whose bytes can be lent to a function: arrays, strings (their UTF-8) and secrets,
/// so that digests and encoders take any of them without copying a secret into an array.
public protocol ByteSource {
  /// How many bytes `withBytes` lends.
  var byteCount: Int { get }
  /// Calls `body` with the bytes, valid only during the call.
  func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result
}

extension Array: ByteSource where Element == UInt8 {
  public var byteCount: Int { count }

  public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    withUnsafeBytes(body)
  }
}

extension String: ByteSource {
  public var byteCount: Int { utf8.count }

  public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    var text = self
    return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
  }
}
