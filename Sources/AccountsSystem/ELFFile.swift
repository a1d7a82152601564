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

  /// Exactly `count` bytes at `offset`, which must lie inside the file.
  func bytes(at offset: UInt64, count: UInt64, _ what: String) throws(Refusal) -> Bytes {
    let (end, overflow) = offset.addingReportingOverflow(count)
    guard !overflow, end <= size else { throw malformed("\(what) past the end of the file") }
    var buffer = [UInt8](repeating: 0, count: Int(count))
    guard try Self.read(descriptor, at: Int(offset), into: &buffer) == Int(count) else {
      throw malformed("\(what) past the end of the file")
    }
    return Bytes(bytes: buffer, isLittleEndian: header.isLittleEndian)
  }

  static func read(_ descriptor: FileDescriptor, at offset: Int, into buffer: inout [UInt8]) throws(Refusal) -> Int {
    do {
      return try buffer.withUnsafeMutableBytes { (raw) throws(Errno) in try descriptor.read(at: offset, into: raw) }
    } catch {
      throw Refusal("cannot read: \(error)")
    }
  }

  func malformed(_ what: String) -> Refusal { Refusal("a malformed ELF file: \(what)") }

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
