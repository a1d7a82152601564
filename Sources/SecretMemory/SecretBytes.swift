/// A secret (password, token, key, secret setting, a request body that carries one) held as
/// bytes that are wiped when released.
///
/// A class rather than an array because an array's storage is copied and freed behind our back
/// (copy on write, growth), leaving copies nobody wipes; here there is one buffer, allocated at
/// its final size however often the value is passed around, and `deinit` wipes it with
/// `explicit_bzero`, which the compiler may not remove. Never convert one to a `String` except to
/// hand it to a child process or a terminal on purpose.
///
/// The host and the adapter kit (built into every adapter) share this one type, so it needs
/// Glibc only.
public final class SecretBytes: Equatable, @unchecked Sendable {
  // @unchecked Sendable: the buffer is written only by the initialisers, read-only afterwards.
  // At least one byte is allocated, so its base address is never nil, even for no secret.
  private let buffer: UnsafeMutableRawBufferPointer

  /// The number of bytes in the secret.
  public let count: Int

  /// `count` bytes written by `initialize`, which is handed exactly `count` zeroed bytes.
  public init(count: Int, initializingWith initialize: (UnsafeMutableRawBufferPointer) -> Void) {
    self.count = max(count, 0)
    buffer = .allocate(byteCount: max(count, 1), alignment: 1)
    buffer.initializeMemory(as: UInt8.self, repeating: 0)
    initialize(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<self.count]))
  }

  /// Copies `bytes`; the caller remains responsible for wiping its own copy.
  public convenience init(copying bytes: UnsafeRawBufferPointer) {
    self.init(count: bytes.count) { target in
      if let base = bytes.baseAddress, bytes.count > 0 {
        target.baseAddress!.copyMemory(from: base, byteCount: bytes.count)
      }
    }
  }

  /// Copies the bytes of `array` and wipes the array's storage.
  public convenience init(consuming array: inout [UInt8]) {
    self.init(copying: array.withUnsafeBytes { $0 })
    wipe(&array)
    array = []
  }

  /// No bytes.
  public static var empty: SecretBytes { SecretBytes(count: 0) { _ in } }

  deinit {
    wipe(buffer)
    buffer.deallocate()
  }

  /// Whether there are no bytes.
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
      wipe(copy)
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

  /// A copy in an array, which nobody wipes: for tests and for values that are not secret.
  public var unprotectedBytes: [UInt8] { withUnsafeBytes { Array($0) } }

  /// Compares every byte whatever the first difference, so the time taken does not tell how
  /// much of a guess was right; only the lengths are compared first.
  public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    lhs.withUnsafeBytes { mine in
      rhs.withUnsafeBytes { theirs in
        for index in 0..<mine.count { difference |= mine[index] ^ theirs[index] }
      }
    }
    return difference == 0
  }
}
