import AccountsContract
import AccountsSystem
import CAccountsAdapter
import Glibc
import SecretMemory

/// The C memory the host lends an adapter for a session: copies of strings, pair lists and the
/// config struct, all released together. Every buffer is zeroed before it is freed, since some
/// hold secrets (the password, secret settings, the token).
final class CArena {
  private var buffers: [UnsafeMutableRawBufferPointer] = []

  deinit { release() }

  /// Wipes and frees everything; called by deinit, or never when an adapter thread may still
  /// read the memory (see `AdapterSessionRunner`).
  func release() {
    for buffer in buffers {
      wipe(buffer)
      buffer.deallocate()
    }
    buffers = []
  }

  /// Leaves the memory alive forever: an abandoned adapter call may still read it.
  func abandon() { buffers = [] }

  private func allocate(_ count: Int, alignment: Int = 16) -> UnsafeMutableRawBufferPointer {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: alignment)
    buffers.append(buffer)
    return buffer
  }

  /// A NUL-terminated copy (the NUL is not counted in the length).
  func string(_ bytes: UnsafeRawBufferPointer) -> acc_string {
    let buffer = allocate(bytes.count + 1, alignment: 1)
    if bytes.count > 0 { buffer.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
    buffer[bytes.count] = 0
    return acc_string(bytes: buffer.baseAddress!.assumingMemoryBound(to: CChar.self), length: bytes.count)
  }

  func string(_ text: String) -> acc_string {
    var text = text
    return text.withUTF8 { string(UnsafeRawBufferPointer($0)) }
  }

  func string(_ secret: SecretBytes?) -> acc_string {
    guard let secret else { return acc_string(bytes: nil, length: 0) }
    return secret.withUnsafeBytes { string($0) }
  }

  func string(_ bytes: [UInt8]) -> acc_string {
    bytes.withUnsafeBytes { string($0) }
  }

  func pairs(_ list: [(acc_string, acc_string)]) -> acc_pairs {
    guard !list.isEmpty else { return acc_pairs(items: nil, count: 0) }
    let buffer = allocate(MemoryLayout<acc_pair>.stride * list.count, alignment: MemoryLayout<acc_pair>.alignment)
    let items = buffer.bindMemory(to: acc_pair.self)
    for (index, pair) in list.enumerated() {
      items[index] = acc_pair(name: pair.0, value: pair.1)
    }
    return acc_pairs(items: UnsafePointer(items.baseAddress!), count: list.count)
  }

  func pairs(_ list: [(String, String)]) -> acc_pairs {
    pairs(list.map { (string($0.0), string($0.1)) })
  }

  /// A copy of `value` in arena memory.
  func place<T>(_ value: T) -> UnsafeMutablePointer<T> {
    let buffer = allocate(MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
    let pointer = buffer.baseAddress!.bindMemory(to: T.self, capacity: 1)
    pointer.initialize(to: value)
    return pointer
  }
}
