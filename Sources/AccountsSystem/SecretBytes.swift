import Glibc

/// A secret (password, token, secret setting) held as bytes that are wiped when released.
///
/// A class so that exactly one buffer exists however often the value is passed around; `deinit`
/// zeroes it with `explicit_bzero`, which the compiler may not remove. Never convert one to a
/// `String` except to hand it to a child process or a terminal on purpose.
public final class SecretBytes: @unchecked Sendable {
  private let buffer: UnsafeMutableRawBufferPointer

  /// Copies `bytes`; the caller remains responsible for wiping its own copy.
  public init(copying bytes: UnsafeRawBufferPointer) {
    buffer = .allocate(byteCount: max(bytes.count, 1), alignment: 1)
    if let base = bytes.baseAddress, bytes.count > 0 {
      buffer.baseAddress!.copyMemory(from: base, byteCount: bytes.count)
    }
    count = bytes.count
  }

  /// Copies the bytes of `array` and wipes the array's storage.
  public convenience init(consuming array: inout [UInt8]) {
    self.init(copying: array.withUnsafeBytes { $0 })
    array.withUnsafeMutableBytes { raw in
      if let base = raw.baseAddress { explicit_bzero(base, raw.count) }
    }
    array.removeAll()
  }

  /// The number of bytes in the secret.
  public let count: Int

  public var isEmpty: Bool { count == 0 }

  /// Borrow the bytes; do not let the pointer escape.
  public func withUnsafeBytes<R, E: Error>(
    _ body: (UnsafeRawBufferPointer) throws(E) -> R
  ) throws(E) -> R {
    try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
  }

  /// Borrow the bytes followed by a NUL, for C APIs that take a string. The copy is wiped.
  public func withUnsafeCString<R, E: Error>(
    _ body: (UnsafePointer<CChar>) throws(E) -> R
  ) throws(E) -> R {
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: count + 1, alignment: 1)
    defer {
      explicit_bzero(copy.baseAddress!, copy.count)
      copy.deallocate()
    }
    if count > 0 { copy.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: count) }
    copy[count] = 0
    return try body(copy.baseAddress!.assumingMemoryBound(to: CChar.self))
  }

  /// Whether the bytes are UTF-8 text (a JSON string can carry them).
  public var isUTF8Text: Bool {
    withUnsafeBytes { String(validating: $0.bindMemory(to: UInt8.self), as: UTF8.self) != nil }
  }

  /// Compares in time independent of where the first difference is.
  public func isEqual(to other: SecretBytes) -> Bool {
    guard count == other.count else { return false }
    var difference: UInt8 = 0
    withUnsafeBytes { mine in
      other.withUnsafeBytes { theirs in
        for index in 0..<count { difference |= mine[index] ^ theirs[index] }
      }
    }
    return difference == 0
  }

  deinit {
    explicit_bzero(buffer.baseAddress!, buffer.count)
    buffer.deallocate()
  }
}
