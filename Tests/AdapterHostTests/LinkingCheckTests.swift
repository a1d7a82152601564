import Foundation
import Testing
import TestSupport

@testable import AdapterHost

/// What `dlopen` would load besides the adapter: the libraries its DT_NEEDED and filter
/// entries name, found through its RUNPATH or RPATH. Each is checked before `dlopen` by the
/// rules the adapter file itself passes; a refused adapter runs no code, neither its own nor
/// a planted library's (whose constructor would leave a sentinel file).
@Suite(.blocking) struct LinkingCheckTests {
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

  /// ld.so finds the dynamic section at PT_DYNAMIC's p_vaddr, mapped through the PT_LOAD
  /// segments, and never at its p_offset: a decoy copy without the RUNPATH at p_offset must
  /// not hide the real one from the checks.
  @Test func aDecoyDynamicSectionAtTheFileOffsetIsIgnored() throws {
    let open = try directory("open", mode: 0o777)
    let (_, sentinel) = try plant(in: open)
    let built = try adapter(in: scratch.path, linkedFrom: open, extra: ["-Wl,-rpath,\(open)"], name: "built")
    var layout = ELFLayout([UInt8](try Data(contentsOf: URL(fileURLWithPath: built))))
    // The copy: the whole section, its RUNPATH and RPATH tags made DT_DEBUG (21).
    let decoy = layout.bytes.count
    let real = Int(layout.word(at: layout.dynamicHeader + 8))
    layout.bytes += layout.bytes[real..<real + Int(layout.word(at: layout.dynamicHeader + 32))]
    for entry in layout.dynamicEntries where entry.tag == 29 || entry.tag == 15 {
      layout.setWord(21, at: decoy + entry.offset - real)
    }
    layout.setWord(UInt64(decoy), at: layout.dynamicHeader + 8)
    let path = scratch.path + "/example.so"
    try Data(layout.bytes).write(to: URL(fileURLWithPath: path))
    chmod(path, 0o755)
    #expect(refusal(path) == "RUNPATH entry '\(open)': directory \(open) is writable by group or others (mode 0777); run: chmod go-w \(open)")
    #expect(!ran(sentinel), "no code of the planted library ran")
  }

  /// Root's sticky /tmp is fine for a file that is yours, but not as a place the loader
  /// searches: anyone may add a library name to it.
  @Test func aSearchPathIntoRootsStickyTmpIsRefusedUnrun() throws {
    var status = stat()
    try #require(stat("/tmp", &status) == 0 && status.st_uid == 0 && status.st_mode & S_ISVTX != 0)
    let (library, sentinel) = try plant(in: "/tmp")
    defer { unlink(library) }
    let path = try adapter(in: scratch.path, linkedFrom: "/tmp", extra: ["-Wl,-rpath,/tmp"])
    #expect(refusal(path) == "RUNPATH entry '/tmp': directory /tmp is writable by others (mode 1777): anyone may add a library to it; use a directory only you or root can write")
    #expect(!ran(sentinel), "no code of the planted library ran")
  }

  /// $ORIGIN of an adapter directly in /tmp is /tmp.
  @Test func originOfAnAdapterInTmpIsRefusedUnrun() throws {
    let (library, sentinel) = try plant(in: "/tmp")
    defer { unlink(library) }
    let name = "adapter-in-tmp-\(planted)"
    let path = try adapter(in: "/tmp", linkedFrom: "/tmp", extra: ["-Wl,-rpath,$ORIGIN"], name: name)
    defer { unlink(path) }
    #expect(refusal(path, name: name) == "RUNPATH entry '$ORIGIN': directory /tmp is writable by others (mode 1777): anyone may add a library to it; use a directory only you or root can write")
    #expect(!ran(sentinel))
  }
}
