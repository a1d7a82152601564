import AccountsCore
import Foundation
import Testing
import TestSupport

@testable import AdapterHost

/// What `dlopen` would load besides the adapter: the libraries its DT_NEEDED and filter
/// entries name, found through its RUNPATH or RPATH. Each is checked before `dlopen` by the
/// rules the adapter file itself passes; a refused adapter runs no code, neither its own nor
/// a planted library's (whose constructor would leave a sentinel file).
@Suite struct LinkingRefusalTests {
  let scratch: ScratchDirectory

  init() throws { scratch = try ScratchDirectory() }

  /// A directory under the scratch directory with `mode`.
  func directory(_ name: String, mode: mode_t = 0o755) throws -> String {
    let path = scratch.path + "/" + name
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    chmod(path, mode)
    return path
  }

  /// This test's planted library, `libPLANTED.so`: a name no other test uses, since glibc
  /// hands out a library already loaded under the same name instead of loading another.
  let planted = "planted" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()

  /// The planted library in `directory`: its constructor creates the returned sentinel path.
  /// `soname`, when given, is what an adapter linked against it records in DT_NEEDED.
  func plant(in directory: String, soname: ((String) -> String)? = nil) throws -> (library: String, sentinel: String) {
    let sentinel = scratch.path + "/ran-\(UUID().uuidString)"
    let file = "lib\(planted).so"
    let library = try CAdapterCompiler.library(
      "planted.c", at: directory + "/" + file, defines: ["SENTINEL=\"\(sentinel)\""],
      linkerArguments: soname.map { ["-Wl,-soname,\($0(file))"] } ?? [])
    return (library, sentinel)
  }

  /// The example adapter in `directory`, linked against the planted library in `libraries`.
  func adapter(
    in directory: String, linkedFrom libraries: String, extra: [String], name: String = "example"
  ) throws -> String {
    try CAdapterCompiler.build(
      "example.c", name: name,
      linkerArguments: ["-L", libraries, "-Wl,--no-as-needed", "-l\(planted)"] + extra,
      into: directory)
  }

  func refusal(_ path: String, name: String = "example") -> String {
    switch AdapterLoader.load(path, name: name) {
    case .success: "loaded"
    case .failure(let refusal): refusal.reason
    }
  }

  func ran(_ sentinel: String) -> Bool { access(sentinel, F_OK) == 0 }

  @Test(arguments: ["--enable-new-dtags", "--disable-new-dtags"])
  func aSearchPathIntoAWorldWritableDirectoryIsRefusedUnrun(tags: String) throws {
    let open = try directory("open", mode: 0o777)
    let (_, sentinel) = try plant(in: open)
    let path = try adapter(in: scratch.path, linkedFrom: open, extra: ["-Wl,\(tags)", "-Wl,-rpath,\(open)"])
    let tag = tags == "--enable-new-dtags" ? "RUNPATH" : "RPATH"
    #expect(refusal(path) == "\(tag) entry '\(open)': directory \(open) is writable by group or others (mode 0777); run: chmod go-w \(open)")
    #expect(!ran(sentinel), "no code of the planted library ran")
  }

  @Test(arguments: [".", "lib"])
  func relativeSearchPathsAreRefused(entry: String) throws {
    let libraries = try directory("lib")
    let (_, sentinel) = try plant(in: libraries)
    let path = try adapter(in: scratch.path, linkedFrom: libraries, extra: ["-Wl,-rpath,\(entry)"])
    #expect(refusal(path) == "RUNPATH entry '\(entry)' is relative: it names a directory under the current directory; use $ORIGIN/\(entry) or an absolute path")
    #expect(!ran(sentinel))
  }

  @Test func anEmptySearchPathEntryIsTheCurrentDirectoryAndRefused() throws {
    let libraries = try directory("lib")
    let (_, sentinel) = try plant(in: libraries)
    let path = try adapter(in: scratch.path, linkedFrom: libraries, extra: ["-Wl,-rpath,\(libraries)::"])
    #expect(refusal(path) == "RUNPATH has an empty entry, which means the current directory")
    #expect(!ran(sentinel))
  }

  @Test func originIntoASafeDirectoryLoadsItsLibraries() throws {
    let libraries = try directory("lib")
    let (_, sentinel) = try plant(in: libraries)
    let path = try adapter(in: scratch.path, linkedFrom: libraries, extra: ["-Wl,-rpath,$ORIGIN/lib"])
    #expect(refusal(path) == "loaded")
    #expect(ran(sentinel), "$ORIGIN is the adapter's own directory, where libplanted.so was found")
  }

  @Test func originIntoAnUnsafeDirectoryIsRefusedUnrun() throws {
    let libraries = try directory("lib", mode: 0o777)
    let (_, sentinel) = try plant(in: libraries)
    let path = try adapter(in: scratch.path, linkedFrom: libraries, extra: ["-Wl,-rpath,${ORIGIN}/lib"])
    #expect(refusal(path) == "RUNPATH entry '${ORIGIN}/lib': directory \(libraries) is writable by group or others (mode 0777); run: chmod go-w \(libraries)")
    #expect(!ran(sentinel))
  }

  @Test func aMissingDirectoryAnyoneCouldCreateIsRefused() throws {
    // /tmp is sticky and world-writable: anyone may create the missing directory later.
    let libraries = try directory("lib")
    try plant(in: libraries)
    let missing = "/tmp/accounts-missing-\(UUID().uuidString)"
    let path = try adapter(in: scratch.path, linkedFrom: libraries, extra: ["-Wl,-rpath,\(missing)/lib"])
    #expect(refusal(path) == "RUNPATH entry '\(missing)/lib': \(missing) does not exist, and anyone may create it in the sticky directory /tmp")
    // A missing directory in a directory only root or you can write is harmless.
    let safe = try adapter(
      in: scratch.path, linkedFrom: libraries, extra: ["-Wl,-rpath,\(libraries):\(scratch.path)/none/lib"],
      name: "example2")
    #expect(refusal(safe, name: "example2").hasPrefix("its descriptor says name 'example'"), "past every file check")
  }

  @Test(arguments: ["$FOO/lib", "$PLATFORM/lib", "${LIB}", "$"])
  func tokensOtherThanOriginAreRefused(entry: String) throws {
    let libraries = try directory("lib")
    try plant(in: libraries)
    let path = try adapter(in: scratch.path, linkedFrom: libraries, extra: ["-Wl,-rpath,\(entry)"])
    #expect(refusal(path).hasPrefix("RUNPATH entry '\(entry)' uses "), "\(refusal(path))")
  }

  @Test func aNeededLibraryByRelativePathIsRefusedUnrun() throws {
    // The library's soname has a slash: the adapter then needs it by that path, which the
    // loader opens relative to the current directory.
    let libraries = try directory("lib")
    let (_, sentinel) = try plant(in: libraries, soname: { "lib/\($0)" })
    let path = try adapter(in: scratch.path, linkedFrom: libraries, extra: [])
    #expect(refusal(path) == "DT_NEEDED entry 'lib/lib\(planted).so' is a relative path: it would be opened from the current directory")
    #expect(!ran(sentinel))
  }

  @Test func aNeededLibraryByAbsolutePathMustPassTheFileChecks() throws {
    let open = try directory("open", mode: 0o777)
    let (library, sentinel) = try plant(in: open, soname: { open + "/" + $0 })
    let path = try adapter(in: scratch.path, linkedFrom: open, extra: [])
    #expect(refusal(path) == "DT_NEEDED entry '\(library)': directory \(open) is writable by group or others (mode 0777); run: chmod go-w \(open)")
    #expect(!ran(sentinel))
  }

  @Test func filterLibrariesAreCheckedLikeNeededOnes() throws {
    let libraries = try directory("lib")
    try plant(in: libraries)
    let open = try directory("open", mode: 0o777)
    let sentinel = scratch.path + "/ran-filter"
    let filter = try CAdapterCompiler.library(
      "planted.c", at: open + "/libfilter-\(planted).so", defines: ["SENTINEL=\"\(sentinel)\""])
    let path = try adapter(
      in: scratch.path, linkedFrom: libraries, extra: ["-Wl,-rpath,\(libraries)", "-Wl,-f,\(filter)"])
    #expect(refusal(path) == "DT_AUXILIARY entry '\(filter)': directory \(open) is writable by group or others (mode 0777); run: chmod go-w \(open)")
    #expect(!ran(sentinel))
  }
}

/// An ELF file for another machine, or one that is not a shared library, is named for what it
/// is instead of dlopen's "No such file or directory".
@Suite struct ForeignELFTests {
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
}
