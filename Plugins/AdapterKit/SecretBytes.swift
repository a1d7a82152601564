import Glibc

/// Bytes that are wiped before their memory is freed: a password, a key, a request body that
/// carries either.
///
/// A class rather than an array because an array's storage is copied and freed behind our back
/// (copy on write, growth), leaving copies nobody wipes; here there is one buffer, allocated at
/// its final size, and `deinit` wipes it with `explicit_bzero`, which the compiler may not
/// remove.
public final class SecretBytes: Equatable, @unchecked Sendable {
  // @unchecked Sendable: the buffer is written only by the initialisers, read-only afterwards.
  private let storage: UnsafeMutableRawBufferPointer

  /// Bytes of `count` bytes written by `initialize`, which must write all of them.
  public init(count: Int, initializingWith initialize: (UnsafeMutableRawBufferPointer) -> Void) {
    storage = .allocate(byteCount: max(count, 0), alignment: 1)
    storage.initializeMemory(as: UInt8.self, repeating: 0)
    initialize(storage)
  }

  /// A copy of `bytes`.
  public convenience init(copying bytes: UnsafeRawBufferPointer) {
    self.init(count: bytes.count) { target in
      if let source = bytes.baseAddress, let destination = target.baseAddress {
        destination.copyMemory(from: source, byteCount: bytes.count)
      }
    }
  }

  /// A copy of `bytes`.
  public convenience init(_ bytes: some ByteSource) {
    self.init(count: bytes.byteCount) { target in
      bytes.withBytes { source in Self.copy(source, into: target, at: 0) }
    }
  }

  /// The bytes of `parts`, one after the other, in one buffer.
  public convenience init(concatenating parts: [any ByteSource]) {
    let count = parts.reduce(0) { $0 + $1.byteCount }
    self.init(count: count) { target in
      var offset = 0
      for part in parts {
        part.withBytes { source in Self.copy(source, into: target, at: offset) }
        offset += part.byteCount
      }
    }
  }

  /// No bytes.
  public static var empty: SecretBytes { SecretBytes(count: 0) { _ in } }

  deinit {
    if let base = storage.baseAddress { explicit_bzero(base, storage.count) }
    storage.deallocate()
  }

  /// The number of bytes.
  public var count: Int { storage.count }

  /// Whether there are no bytes.
  public var isEmpty: Bool { storage.isEmpty }

  /// A copy in an array, which nobody wipes: for tests and for values that are not secret.
  public var unprotectedBytes: [UInt8] { Array(storage) }

  public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
    lhs.storage.elementsEqual(rhs.storage)
  }

  private static func copy(
    _ source: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer, at offset: Int
  ) {
    guard let from = source.baseAddress, let to = target.baseAddress, !source.isEmpty else {
      return
    }
    (to + offset).copyMemory(from: from, byteCount: source.count)
  }
}

extension SecretBytes: ByteSource {
  public var byteCount: Int { storage.count }

  public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    body(UnsafeRawBufferPointer(storage))
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
