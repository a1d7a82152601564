// The dynamic section: which libraries a file brings in, and from where (see ELFFile.swift).
extension ELFFile {
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
}
