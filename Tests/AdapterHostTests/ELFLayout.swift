import Foundation

/// Where the fields of a 64-bit little-endian ELF shared library lie, for tests that rewrite
/// them: the header's program header offset, each program header, each dynamic entry.
struct ELFLayout {
  var bytes: [UInt8]

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  func word(at offset: Int) -> UInt64 {
    (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
  }

  mutating func setWord(_ value: UInt64, at offset: Int) {
    for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
  }

  /// e_phoff
  static let programHeaderOffsetField = 32

  /// The file offset of each program header, with its type.
  var programHeaders: [(offset: Int, type: UInt32)] {
    let start = Int(word(at: 32))
    let size = Int(bytes[54]) | Int(bytes[55]) << 8
    let count = Int(bytes[56]) | Int(bytes[57]) << 8
    return (0..<count).map { index in
      let offset = start + index * size
      return (offset, UInt32(truncatingIfNeeded: word(at: offset)))
    }
  }

  /// p_offset, p_vaddr, p_filesz, p_memsz of the program header at `header`.
  static func segmentFields(_ header: Int) -> [Int] { [header + 8, header + 16, header + 32, header + 40] }

  /// The PT_DYNAMIC program header's file offset.
  var dynamicHeader: Int { programHeaders.first { $0.type == 2 }!.offset }

  /// The file offset of each dynamic entry (tag, value), DT_NULL included.
  var dynamicEntries: [(offset: Int, tag: UInt64)] {
    let start = Int(word(at: dynamicHeader + 8))
    var entries: [(Int, UInt64)] = []
    var offset = start
    while offset + 16 <= bytes.count {
      let tag = word(at: offset)
      entries.append((offset, tag))
      if tag == 0 { break }
      offset += 16
    }
    return entries
  }
}
