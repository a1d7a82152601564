import AccountsContract
import AccountsSystem
import Foundation
import Testing
import TestSupport

@testable import AdapterHost

/// Every library the dynamic loader would load with an adapter, found by asking the loader
/// itself (`ld.so` in trace mode, which maps but runs nothing), passes the file rules before
/// `dlopen`: libraries found by plain names, and their own libraries in turn.
@Suite(.blocking) struct LibraryDependenciesTests {
  let scratch: ScratchDirectory
  /// Names no other test uses: glibc hands out a library already loaded under the same name.
  let unique = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()

  init() throws { scratch = try ScratchDirectory() }

  func directory(_ name: String, mode: mode_t = 0o755) throws -> String {
    let path = scratch.path + "/" + name
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    chmod(path, mode)
    return path
  }

  /// `lib<stem><unique>.so` in `directory` from planted.c, whose constructor creates the
  /// returned sentinel; `linkerArguments` link it against others.
  func library(_ stem: String, in directory: String, linkerArguments: [String] = []) throws -> (name: String, path: String, sentinel: String) {
    let name = "\(stem)\(unique)"
    let sentinel = scratch.path + "/ran-\(name)"
    let path = try CAdapterCompiler.library(
      "planted.c", at: "\(directory)/lib\(name).so", defines: ["SENTINEL=\"\(sentinel)\""],
      linkerArguments: linkerArguments)
    return (name, path, sentinel)
  }

  func adapter(needing name: String, from directory: String, runpath: String) throws -> String {
    try CAdapterCompiler.build(
      "example.c", name: "example",
      linkerArguments: ["-L", directory, "-Wl,--no-as-needed", "-l\(name)", "-Wl,-rpath,\(runpath)"],
      into: scratch.path)
  }

  func refusal(_ path: String) -> String {
    switch AdapterLoader.load(path, name: "example") {
    case .success: "loaded"
    case .failure(let refusal): refusal.reason
    }
  }

  func ran(_ sentinel: String) -> Bool { access(sentinel, F_OK) == 0 }

  @Test func aWritableLibraryFoundByNameInASafeDirectoryIsRefusedUnrun() throws {
    let libraries = try directory("lib")
    let planted = try library("planted", in: libraries)
    chmod(planted.path, 0o666)
    let path = try adapter(needing: planted.name, from: libraries, runpath: "$ORIGIN/lib")
    #expect(refusal(path).hasPrefix("library lib\(planted.name).so (\(planted.path)): writable by group or others (mode 0666); run: chmod go-w "), "\(refusal(path))")
    #expect(!ran(planted.sentinel), "listing the libraries ran no constructor, and nothing was loaded")
  }

  @Test func aSafeLibraryThatSearchesAWorldWritableDirectoryIsRefusedUnrun() throws {
    let libraries = try directory("lib")
    let open = try directory("open", mode: 0o777)
    let planted = try library("planted", in: open)
    let middle = try library(
      "middle", in: libraries, linkerArguments: ["-L", open, "-Wl,--no-as-needed", "-l\(planted.name)", "-Wl,-rpath,\(open)"])
    let path = try adapter(needing: middle.name, from: libraries, runpath: "$ORIGIN/lib")
    #expect(refusal(path).hasPrefix("library lib\(middle.name).so (\(middle.path)): RUNPATH entry '\(open)': directory \(open) is writable by group or others (mode 0777)"), "\(refusal(path))")
    #expect(!ran(planted.sentinel) && !ran(middle.sentinel))
  }

  @Test func aMissingLibraryIsNamed() throws {
    let libraries = try directory("lib")
    let gone = try library("gone", in: libraries)
    let path = try adapter(needing: gone.name, from: libraries, runpath: "$ORIGIN/lib")
    try FileManager.default.removeItem(atPath: gone.path)
    #expect(refusal(path) == "needs lib\(gone.name).so, which the dynamic loader does not find")
  }

  /// A library this process has already loaded is not searched for again by `dlopen`: a
  /// Swift adapter built without the toolchain's directory in its RUNPATH still loads.
  @Test func aLibraryAlreadyLoadedNeedNotBeFound() throws {
    let swiftCore = try #require(loadedLibraryPath(containing: "/libswiftCore.so"))
    let directory = String(swiftCore[..<swiftCore.lastIndex(of: "/")!])
    let path = try CAdapterCompiler.build(
      "example.c", name: "example", linkerArguments: ["-L", directory, "-Wl,--no-as-needed", "-lswiftCore"],
      into: scratch.path)
    #expect(refusal(path) == "loaded")
  }

  /// The loader's trace, line by line; a line of another shape is refused, never skipped.
  @Test func theTraceIsReadStrictly() throws {
    let lines = [
      "\tlinux-vdso.so.1 (0x00007ffd0c5f5000)", "\tlibx.so => /opt/x/libx.so (0x00007f1a2b3c4000)",
      "\tliby.so => not found", "\t/abs/libz.so (0x00007f1a2b3c4000)", "\tstatically linked",
    ]
    #expect(try LibraryDependencies.parse(lines).get() == [
      .found(name: "libx.so", path: "/opt/x/libx.so"), .missing(name: "liby.so"),
      .found(name: "/abs/libz.so", path: "/abs/libz.so"),
    ])
    for odd in ["libx.so => /opt/x/libx.so (0x1)", "\tlibx.so => /opt/x/libx.so", "\tsomething else", "\t => /x (0x1)",
      "\t/x.so (0xzz)", "\tversion `GLIBC_9' not found"]
    {
      #expect(throws: Refusal.self, "\(odd)") { try LibraryDependencies.parse([odd]).get() }
    }
  }

  /// The path of a library mapped into this process, from /proc/self/maps.
  func loadedLibraryPath(containing name: String) -> String? {
    // /proc files say they are empty: read to the end instead of by their size.
    guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps"), let data = try? handle.readToEnd() else { return nil }
    let maps = String(decoding: data, as: UTF8.self)
    return maps.split(separator: "\n").compactMap { line in
      line.firstIndex(of: "/").map { String(line[$0...]) }
    }.first { $0.hasSuffix(name) }
  }
}
