import CAccountsAdapter
import Glibc
import SecretMemory

/// The memory behind one step's output: every string and pair list the step hands the host,
/// kept until the next step or session_free, then wiped (a request body may carry a password,
/// a token is a secret) and freed.
final class OutputArena {
  private var blocks: [UnsafeMutableRawBufferPointer] = []

  deinit { release() }

  /// A copy of `source` as an acc_string; NULL and 0 when empty.
  func string(_ source: some ByteSource) -> acc_string {
    let count = source.byteCount
    guard count > 0 else { return acc_string(bytes: nil, length: 0) }
    let block = allocate(byteCount: count, alignment: 1)
    source.withBytes { bytes in
      if let from = bytes.baseAddress, let to = block.baseAddress {
        to.copyMemory(from: from, byteCount: min(bytes.count, count))
      }
    }
    return acc_string(
      bytes: block.baseAddress?.assumingMemoryBound(to: CChar.self), length: count)
  }

  /// A copy of `pairs`, then `secrets`, as acc_pairs; NULL and 0 when both are empty.
  func pairs(_ pairs: [Pair], _ secrets: [SecretPair] = []) -> acc_pairs {
    let entries: [(name: String, value: any ByteSource)] =
      pairs.map { ($0.name, $0.value) } + secrets.map { ($0.name, $0.value) }
    guard !entries.isEmpty else { return acc_pairs(items: nil, count: 0) }
    let block = allocate(
      byteCount: MemoryLayout<acc_pair>.stride * entries.count,
      alignment: MemoryLayout<acc_pair>.alignment)
    let items = block.bindMemory(to: acc_pair.self)
    for (index, entry) in entries.enumerated() {
      items.initializeElement(
        at: index, to: acc_pair(name: string(entry.name), value: string(entry.value)))
    }
    return acc_pairs(items: UnsafePointer(items.baseAddress), count: entries.count)
  }

  /// Wipes and frees everything handed out so far.
  func release() {
    for block in blocks {
      wipe(block)
      block.deallocate()
    }
    blocks.removeAll(keepingCapacity: true)
  }

  private func allocate(byteCount: Int, alignment: Int) -> UnsafeMutableRawBufferPointer {
    let block = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCount, alignment: alignment)
    blocks.append(block)
    return block
  }
}
