import Glibc

/// The parts of an ELF file accounts reads before `dlopen`: the header (which machine, which
/// kind of file) and the dynamic section (which libraries it brings in, from where). The file
/// may be hostile: every offset, size and count is checked against the file before it is used,
/// every read is bounded, and nothing is mapped or loaded.
public struct ELFFile {
  let descriptor: FileDescriptor
  let size: UInt64
  public let header: Header

  /// The ELF header fields accounts uses.
  public struct Header: Sendable {
    public var is64Bit: Bool
    public var isLittleEndian: Bool
    /// `e_type`: 1 REL, 2 EXEC, 3 DYN, 4 CORE.
    public var type: UInt16
    /// `e_machine`, e.g. 62 for x86-64.
    public var machine: UInt16
    var programHeaderOffset: UInt64
    var programHeaderEntrySize: UInt64
    var programHeaderCount: UInt64
  }

  /// Reads the ELF header of the open regular file `descriptor`, `size` bytes long.
  public init(_ descriptor: FileDescriptor, size: Int) throws(Refusal) {
    self.descriptor = descriptor
    self.size = UInt64(max(0, size))
    var ident = [UInt8](repeating: 0, count: 64)
    let count = try Self.read(descriptor, at: 0, into: &ident)
    guard count >= 6, ident[0..<4] == [0x7F, 0x45, 0x4C, 0x46] else {
      throw Refusal("not an ELF shared library")
    }
    guard ident[4] == 1 || ident[4] == 2, ident[5] == 1 || ident[5] == 2 else {
      throw Refusal("not an ELF shared library: unknown ELF class \(ident[4]) or data encoding \(ident[5])")
    }
    let is64Bit = ident[4] == 2
    guard count >= (is64Bit ? 64 : 52) else {
      throw Refusal("not an ELF shared library: the file ends inside its ELF header")
    }
    let bytes = Bytes(bytes: ident, isLittleEndian: ident[5] == 1)
    header = Header(
      is64Bit: is64Bit, isLittleEndian: bytes.isLittleEndian,
      type: UInt16(bytes.integer(at: 16, size: 2)), machine: UInt16(bytes.integer(at: 18, size: 2)),
      programHeaderOffset: bytes.integer(at: is64Bit ? 32 : 28, size: is64Bit ? 8 : 4),
      programHeaderEntrySize: bytes.integer(at: is64Bit ? 54 : 42, size: 2),
      programHeaderCount: bytes.integer(at: is64Bit ? 56 : 44, size: 2))
  }

  /// Why this file cannot be loaded into this process: another machine, word size or byte
  /// order, or not a shared library. dlopen says "No such file or directory" for some of these.
  public func hostProblem() -> Refusal? {
    let host = ELFMachine.host
    if header.is64Bit != host.is64Bit {
      return Refusal(
        "built for \(header.is64Bit ? 64 : 32)-bit machines; this machine is \(host.name) (\(host.is64Bit ? 64 : 32)-bit)")
    }
    if header.isLittleEndian != host.isLittleEndian {
      return Refusal(
        "built for \(header.isLittleEndian ? "little" : "big")-endian machines; this machine is \(host.name) (\(host.isLittleEndian ? "little" : "big")-endian)")
    }
    if header.machine != host.machine {
      return Refusal("built for \(ELFMachine.name(header.machine)); this machine is \(host.name)")
    }
    switch header.type {
    case 3: return nil
    case 2: return Refusal("an executable (ELF type EXEC), not a shared library; link it with -shared")
    case 1: return Refusal("an object file (ELF type REL), not a shared library; link it with -shared")
    case 4: return Refusal("a core dump (ELF type CORE), not a shared library")
    default: return Refusal("ELF type \(header.type), not a shared library; link it with -shared")
    }
  }

  // MARK: The dynamic section

  /// What the dynamic section asks the loader to do: libraries to load and where to look.
  public struct Dynamic: Sendable, Equatable {
    /// DT_NEEDED, in order.
    public var needed: [String] = []
    /// DT_FILTER and DT_AUXILIARY: libraries the loader also loads.
    public var filters: [String] = []
    public var auxiliaries: [String] = []
    public var runpath: String?
    public var rpath: String?
    /// DT_FLAGS_1 has DF_1_PIE: a program built as a position-independent executable.
    public var isProgram = false
  }

  /// Strings and entries beyond these are not the work of a linker.
  static let maxProgramHeaders: UInt64 = 4096
  static let maxDynamicBytes: UInt64 = 1 << 20
  static let maxLibraries = 256
  static let maxString = 4096

  /// The dynamic section, found as ld.so finds it: at PT_DYNAMIC's virtual address, mapped
  /// to a file offset through the PT_LOAD segment that holds it (never at PT_DYNAMIC's
  /// p_offset, which ld.so ignores: a decoy there would hide the real entries from the checks),
  /// and read up to DT_NULL. The string table is mapped the same way. A file without a
  /// PT_DYNAMIC (nothing to link) has an empty `Dynamic`.
  public func dynamic() throws(Refusal) -> Dynamic {
    var loads: [Segment] = []
    var dynamicSegment: Segment?
    for segment in try programHeaders() {
      switch segment.type {
      case 1: loads.append(segment)
      case 2:
        guard dynamicSegment == nil else { throw malformed("two PT_DYNAMIC segments") }
        dynamicSegment = segment
      default: break
      }
    }
    guard let dynamicSegment else { return Dynamic() }
    let (offset, available) = try fileRange(ofAddress: dynamicSegment.address, loads: loads, "the dynamic section")
    return try readDynamic(try dynamicEntries(at: offset, available: available), loads: loads)
  }

  /// Refuses a file whose PT_LOAD segments do not all lie inside it: a truncated library.
  /// dlopen maps such a segment past the file's end, and the first touch of it kills the
  /// process with SIGBUS instead of failing.
  public func checkLoadedSegments() throws(Refusal) {
    for (index, segment) in try programHeaders().enumerated() where segment.type == 1 {
      let (end, overflow) = segment.offset.addingReportingOverflow(segment.fileSize)
      guard !overflow, end <= size else {
        throw malformed("loaded segment \(index) ends past the end of the file")
      }
    }
  }

  /// The program headers, each count and size bounded first.
  private func programHeaders() throws(Refusal) -> [Segment] {
    let entrySize: UInt64 = header.is64Bit ? 56 : 32
    guard header.programHeaderCount <= Self.maxProgramHeaders else {
      throw malformed("\(header.programHeaderCount) program headers")
    }
    guard header.programHeaderCount == 0 || (entrySize...1024).contains(header.programHeaderEntrySize) else {
      throw malformed("program headers of \(header.programHeaderEntrySize) bytes")
    }
    // Both factors are bounded above: the product cannot overflow.
    let table = try bytes(
      at: header.programHeaderOffset, count: header.programHeaderEntrySize * header.programHeaderCount,
      "the program headers")
    return (0..<header.programHeaderCount).map { index in
      Segment(table, at: Int(index * header.programHeaderEntrySize), is64Bit: header.is64Bit)
    }
  }

  /// The program interpreter a program names (PT_INTERP, read at its file offset as the kernel
  /// reads it), e.g. /lib64/ld-linux-x86-64.so.2; nil when there is none.
  public func interpreter() throws(Refusal) -> String? {
    guard header.programHeaderCount <= Self.maxProgramHeaders,
      header.programHeaderCount == 0 || (32...1024).contains(header.programHeaderEntrySize)
    else { throw malformed("\(header.programHeaderCount) program headers") }
    let table = try bytes(
      at: header.programHeaderOffset, count: header.programHeaderEntrySize * header.programHeaderCount,
      "the program headers")
    for index in 0..<header.programHeaderCount {
      let segment = Segment(table, at: Int(index * header.programHeaderEntrySize), is64Bit: header.is64Bit)
      guard segment.type == 3 else { continue }
      guard (2...UInt64(Self.maxString)).contains(segment.fileSize) else { throw malformed("a PT_INTERP of \(segment.fileSize) bytes") }
      let text = try bytes(at: segment.offset, count: segment.fileSize, "the interpreter's name").bytes
      guard let end = text.firstIndex(of: 0), let name = String(validating: text[..<end], as: UTF8.self) else {
        throw malformed("an interpreter name that is not UTF-8 text")
      }
      return name
    }
    return nil
  }

  /// The dynamic entries at `offset` up to DT_NULL, read a page at a time; the segment's file
  /// part may end first (the loader then reads zeros: DT_NULL).
  private func dynamicEntries(at offset: UInt64, available: UInt64) throws(Refusal) -> Bytes {
    let word = header.is64Bit ? 8 : 4
    var read: UInt64 = 0
    var entries: [UInt8] = []
    while read < available {
      guard read < Self.maxDynamicBytes else { throw malformed("a dynamic section longer than \(Self.maxDynamicBytes) bytes") }
      let (start, overflow) = offset.addingReportingOverflow(read)
      guard !overflow else { throw malformed("the dynamic section at an offset past 2^64") }
      let chunk = try bytes(at: start, count: min(available - read, 4096), "the dynamic section")
      entries += chunk.bytes
      read += UInt64(chunk.count)
      let view = Bytes(bytes: entries, isLittleEndian: header.isLittleEndian)
      // Entries are checked from the start each time: sections are a page or two at most.
      var base = 0
      while base + 2 * word <= view.count {
        if view.integer(at: base, size: word) == 0 { return view }
        base += 2 * word
      }
    }
    return Bytes(bytes: entries, isLittleEndian: header.isLittleEndian)
  }

  private func readDynamic(_ entries: Bytes, loads: [Segment]) throws(Refusal) -> Dynamic {
    let word = header.is64Bit ? 8 : 4
    var strings: [(tag: UInt64, offset: UInt64)] = []
    var stringTable: UInt64?
    var stringTableSize: UInt64?
    var dynamic = Dynamic()
    var base = 0
    while base + 2 * word <= entries.count {
      let tag = entries.integer(at: base, size: word)
      let value = entries.integer(at: base + word, size: word)
      base += 2 * word
      switch tag {
      case 0: break  // DT_NULL ends the list
      case 5: stringTable = value
      case 10: stringTableSize = value
      case 1, 15, 29, 0x7FFF_FFFD, 0x7FFF_FFFF: strings.append((tag, value))
      case 0x6FFF_FFFB: dynamic.isProgram = value & 0x0800_0000 != 0
      default: continue
      }
      if tag == 0 { break }
    }
    guard !strings.isEmpty else { return dynamic }
    guard strings.count <= Self.maxLibraries else { throw malformed("\(strings.count) library and path entries") }
    guard let stringTable, let stringTableSize else { throw malformed("names without a string table") }
    let (offset, available) = try fileRange(ofAddress: stringTable, loads: loads, "the string table")
    guard stringTableSize <= available else { throw malformed("a string table past the end of its segment") }
    for (tag, index) in strings {
      let text = try string(at: offset, index: index, tableSize: stringTableSize)
      switch tag {
      case 1: dynamic.needed.append(text)
      case 15: dynamic.rpath = text
      case 29: dynamic.runpath = text
      case 0x7FFF_FFFD: dynamic.auxiliaries.append(text)
      default: dynamic.filters.append(text)
      }
    }
    return dynamic
  }

  /// The file offset of a virtual address inside a PT_LOAD segment's file-backed part, and the
  /// bytes from there to the segment's end in the file. Every sum is checked: the values come
  /// from the file, and an overflow is a malformed file, not a trap.
  private func fileRange(ofAddress address: UInt64, loads: [Segment], _ what: String) throws(Refusal) -> (UInt64, UInt64) {
    for load in loads where address >= load.address {
      let (end, overflow) = load.address.addingReportingOverflow(load.fileSize)
      guard !overflow, address < end else { continue }
      let (offset, past) = load.offset.addingReportingOverflow(address - load.address)
      guard !past else { throw malformed("\(what) at an offset past 2^64") }
      return (offset, end - address)
    }
    throw malformed("\(what) outside every loaded segment")
  }

  /// The NUL-terminated UTF-8 string at `index` in the string table at `offset`.
  private func string(at offset: UInt64, index: UInt64, tableSize: UInt64) throws(Refusal) -> String {
    guard index < tableSize else { throw malformed("a name past the end of the string table") }
    let (start, overflow) = offset.addingReportingOverflow(index)
    guard !overflow else { throw malformed("a name at an offset past 2^64") }
    let count = min(tableSize - index, UInt64(Self.maxString))
    let chunk = try bytes(at: start, count: count, "the string table")
    guard let end = chunk.bytes.firstIndex(of: 0) else { throw malformed("a name without an end") }
    guard let text = String(validating: chunk.bytes[..<end], as: UTF8.self) else {
      throw malformed("a name that is not UTF-8")
    }
    return text
  }

  /// Exactly `count` bytes at `offset`, which must lie inside the file.
  private func bytes(at offset: UInt64, count: UInt64, _ what: String) throws(Refusal) -> Bytes {
    let (end, overflow) = offset.addingReportingOverflow(count)
    guard !overflow, end <= size else { throw malformed("\(what) past the end of the file") }
    var buffer = [UInt8](repeating: 0, count: Int(count))
    guard try Self.read(descriptor, at: Int(offset), into: &buffer) == Int(count) else {
      throw malformed("\(what) past the end of the file")
    }
    return Bytes(bytes: buffer, isLittleEndian: header.isLittleEndian)
  }

  private static func read(_ descriptor: FileDescriptor, at offset: Int, into buffer: inout [UInt8]) throws(Refusal) -> Int {
    do {
      return try buffer.withUnsafeMutableBytes { (raw) throws(Errno) in try descriptor.read(at: offset, into: raw) }
    } catch {
      throw Refusal("cannot read: \(error)")
    }
  }

  private func malformed(_ what: String) -> Refusal { Refusal("a malformed ELF file: \(what)") }

  /// Bytes read from the file, with the file's byte order.
  struct Bytes {
    let bytes: [UInt8]
    let isLittleEndian: Bool

    var count: Int { bytes.count }

    /// The unsigned integer of `size` bytes at `offset` (the caller keeps it in bounds).
    func integer(at offset: Int, size: Int) -> UInt64 {
      var value: UInt64 = 0
      for index in 0..<size {
        let byte = UInt64(bytes[isLittleEndian ? offset + size - 1 - index : offset + index])
        value = value << 8 | byte
      }
      return value
    }
  }

  /// One program header.
  struct Segment {
    let type: UInt64
    let offset: UInt64
    let address: UInt64
    let fileSize: UInt64

    init(_ table: Bytes, at base: Int, is64Bit: Bool) {
      type = table.integer(at: base, size: 4)
      if is64Bit {
        offset = table.integer(at: base + 8, size: 8)
        address = table.integer(at: base + 16, size: 8)
        fileSize = table.integer(at: base + 32, size: 8)
      } else {
        offset = table.integer(at: base + 4, size: 4)
        address = table.integer(at: base + 8, size: 4)
        fileSize = table.integer(at: base + 16, size: 4)
      }
    }
  }
}

/// ELF machine numbers (`e_machine`) and their names.
public enum ELFMachine {
  /// This process's machine.
  public static let host: (machine: UInt16, name: String, is64Bit: Bool, isLittleEndian: Bool) = {
    #if arch(x86_64)
      let machine: UInt16 = 62
    #elseif arch(arm64)
      let machine: UInt16 = 183
    #elseif arch(i386)
      let machine: UInt16 = 3
    #elseif arch(arm)
      let machine: UInt16 = 40
    #elseif arch(s390x)
      let machine: UInt16 = 22
    #elseif arch(powerpc64le) || arch(powerpc64)
      let machine: UInt16 = 21
    #elseif arch(riscv64)
      let machine: UInt16 = 243
    #else
      let machine: UInt16 = 0
    #endif
    return (machine, name(machine), MemoryLayout<Int>.size == 8, 1.littleEndian == 1)
  }()

  public static func name(_ machine: UInt16) -> String {
    switch machine {
    case 2: "SPARC"
    case 3: "x86 (i386)"
    case 8: "MIPS"
    case 20: "PowerPC"
    case 21: "PowerPC64"
    case 22: "S/390"
    case 40: "ARM"
    case 43: "SPARC V9"
    case 62: "x86-64"
    case 183: "AArch64"
    case 243: "RISC-V"
    case 258: "LoongArch"
    default: "machine type \(machine)"
    }
  }
}
