import Glibc

/// Zeroes memory with `explicit_bzero`, which the compiler may not remove as a dead store: the one
/// place that wipes, for secrets held in anything but `SecretBytes` (a read buffer, a C string
/// handed to a child, a digest).
public func wipe(_ bytes: UnsafeMutableRawBufferPointer) {
  if let base = bytes.baseAddress, bytes.count > 0 { explicit_bzero(base, bytes.count) }
}

/// Zeroes `count` bytes at `pointer`.
public func wipe(_ pointer: UnsafeMutableRawPointer, count: Int) {
  if count > 0 { explicit_bzero(pointer, count) }
}

/// Zeroes an array's storage and empties it (keeping the capacity, so that the next use writes
/// over the same, already wiped, memory).
public func wipe<Element: BitwiseCopyable>(_ array: inout [Element]) {
  array.withUnsafeMutableBytes { wipe($0) }
  array.removeAll(keepingCapacity: true)
}
