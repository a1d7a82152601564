import Foundation
import Testing
import TestSupport

@testable import AdapterHost

/// An ELF file for another machine, or one that is not a shared library, is named for what it
/// is instead of dlopen's "No such file or directory".
@Suite(.blocking) struct AdapterFileCheckTests {
  let scratch: ScratchDirectory

  init() throws { scratch = try ScratchDirectory() }

  /// A copy of the example adapter as `name`.so with `bytes` written at `offset`.
  func patched(_ name: String, at offset: Int, _ bytes: [UInt8]) throws -> String {
    let original = try CAdapterCompiler.build("example.c", name: "original", into: scratch.path)
    var data = try Data(contentsOf: URL(fileURLWithPath: original))
    data.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    let path = scratch.path + "/\(name).so"
    try data.write(to: URL(fileURLWithPath: path))
    chmod(path, 0o644)
    return path
  }

  func refusal(_ path: String, name: String) -> String {
    switch AdapterLoader.load(path, name: name) {
    case .success: "loaded"
    case .failure(let refusal): refusal.reason
    }
  }

  #if arch(x86_64)
    /// Another machine than this one, little-endian e_machine, and its name.
    static let other: (machine: [UInt8], name: String, host: String) = ([183, 0], "AArch64", "x86-64")
  #else
    static let other: (machine: [UInt8], name: String, host: String) = ([62, 0], "x86-64", "AArch64")
  #endif

  @Test func anotherArchitectureIsNamed() throws {
    let path = try patched("foreign", at: 18, Self.other.machine)
    #expect(refusal(path, name: "foreign") == "built for \(Self.other.name); this machine is \(Self.other.host)")
  }

  @Test func anotherWordSizeOrByteOrderIsNamed() throws {
    let narrow = try patched("narrow", at: 4, [1])
    #expect(refusal(narrow, name: "narrow") == "built for 32-bit machines; this machine is \(Self.other.host) (64-bit)")
    let big = try patched("big", at: 5, [2])
    #expect(refusal(big, name: "big") == "built for big-endian machines; this machine is \(Self.other.host) (little-endian)")
  }

  @Test func programsAndObjectFilesAreNotSharedLibraries() throws {
    let program = try patched("program", at: 16, [2, 0])
    #expect(refusal(program, name: "program") == "an executable (ELF type EXEC), not a shared library; link it with -shared")
    let object = try patched("object", at: 16, [1, 0])
    #expect(refusal(object, name: "object") == "an object file (ELF type REL), not a shared library; link it with -shared")
  }

  @Test func truncatedAndInconsistentHeadersAreRefusedUnloaded() throws {
    let original = try CAdapterCompiler.build("example.c", name: "original", into: scratch.path)
    let data = try Data(contentsOf: URL(fileURLWithPath: original))
    let short = scratch.path + "/short.so"
    try data.prefix(40).write(to: URL(fileURLWithPath: short))
    #expect(refusal(short, name: "short") == "not an ELF shared library: the file ends inside its ELF header")
    // Program headers said to lie far past the end of the file.
    let far = try patched("far", at: 32, [0, 0, 0, 0, 0, 0, 0, 0x10])
    #expect(refusal(far, name: "far").hasPrefix("a malformed ELF file: "), "\(refusal(far, name: "far"))")
  }

  /// Corrupt headers, program headers and dynamic entries: every read is bounded, so the
  /// checks refuse or pass such a file, they never crash on it (a crash ends this test run).
  @Test func corruptFilesNeverCrashTheChecks() throws {
    let original = try CAdapterCompiler.build("example.c", name: "original", into: scratch.path)
    let data = try Data(contentsOf: URL(fileURLWithPath: original))
    var random = SystemRandomNumberGenerator()
    var refused = 0
    for round in 0..<300 {
      var bytes = [UInt8](data)
      // The first pages hold the ELF header, the program headers and the dynamic section;
      // every other round aims at the headers alone.
      let span = min(bytes.count, round % 2 == 0 ? 1024 : 16384)
      for _ in 0..<Int.random(in: 1...8, using: &random) {
        bytes[Int.random(in: 0..<span, using: &random)] = UInt8.random(in: 0...255, using: &random)
      }
      let path = scratch.path + "/corrupt\(round).so"
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      chmod(path, 0o644)
      switch AdapterFileCheck().open(path) {
      case .failure: refused += 1
      case .success(let file):
        if AdapterFileCheck().checkLinking(file) != nil { refused += 1 }
        file.descriptor.close()
      }
    }
    #expect(refused > 0, "some corruption is noticed before dlopen")
  }

  /// Header fields set to the values arithmetic overflows on (offsets and sizes near 2^64,
  /// 2^63, 2^32, the file's size): each is refused as a malformed ELF file or passes, and
  /// never traps. Random bytes alone rarely hit these.
  @Test func extremeHeaderFieldsNeverCrashTheChecks() throws {
    let original = try CAdapterCompiler.build("example.c", name: "original", into: scratch.path)
    let layout = ELFLayout([UInt8](try Data(contentsOf: URL(fileURLWithPath: original))))
    let size = UInt64(layout.bytes.count)
    let extremes: [UInt64] = [0, 1, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFF0, 0x8000_0000_0000_0000,
      0x7FFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF, size, size - 1]
    var fields = [ELFLayout.programHeaderOffsetField]
    for header in layout.programHeaders { fields += ELFLayout.segmentFields(header.offset) }
    fields += layout.dynamicEntries.map { $0.offset + 8 }
    var refused = 0
    for (number, field) in fields.enumerated() {
      for (round, value) in extremes.enumerated() {
        var bytes = layout
        bytes.setWord(value, at: field)
        let path = scratch.path + "/extreme\(number)-\(round).so"
        try Data(bytes.bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        switch AdapterFileCheck().open(path) {
        case .failure: refused += 1
        case .success(let file):
          if AdapterFileCheck().checkLinking(file) != nil { refused += 1 }
          file.descriptor.close()
        }
      }
    }
    #expect(refused > 0)
  }
}
