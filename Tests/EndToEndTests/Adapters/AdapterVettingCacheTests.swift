import Foundation
import TestSupport
import Testing

/// The dependency check (`ld.so` in trace mode) runs when the adapter or what the loader
/// resolved for it changed, not on every load: its passing verdict is kept in the user's cache
/// with each file's device, inode, size, mtime and ctime, and re-checked by stat alone.
@Suite(.blocking) struct AdapterVettingCacheTests {
  /// A sandbox with the example adapter needing libdep.so from `$ORIGIN/lib`, and a backend on it.
  struct World {
    let sandbox: Sandbox
    let adapter: String
    let library: String
    let log: String

    init() throws {
      sandbox = try Sandbox()
      let adapters = try sandbox.userAdapterDirectory()
      let libraries = adapters + "/lib"
      try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
      chmod(libraries, 0o755)
      // Its constructor leaves a file outside the searched directory, which it would change.
      library = try CAdapterCompiler.library(
        "planted.c", at: libraries + "/libdep.so", defines: ["SENTINEL=\"\(sandbox.keyring.root)/ran\""])
      adapter = try CAdapterCompiler.build(
        "example.c", name: "example",
        linkerArguments: ["-L", libraries, "-Wl,--no-as-needed", "-ldep", "-Wl,-rpath,$ORIGIN/lib"], into: adapters)
      log = sandbox.keyring.root + "/spawns.log"
    }

    var cacheFile: String { sandbox.environment["HOME"]! + "/.cache/accounts/adapter-checks.json" }

    /// Runs `accounts ARGUMENTS` and returns it with the number of times it started the loader.
    func run(_ arguments: [String]) throws -> (result: ProcessResult, loaderRuns: Int) {
      try? FileManager.default.removeItem(atPath: log)
      let result = try sandbox.run(arguments, environment: Interposer.environment().merging(["SPAWNS_LOG": log]) { $1 })
      let spawns = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      let loaderRuns = spawns.split(separator: "\n").filter { $0.contains("/ld-linux") || $0.contains("/ld.so") }.count
      return (result, loaderRuns)
    }

    func close() { sandbox.close() }
  }

  @Test func aLoadWithNothingChangedDoesNotRunTheLoader() throws {
    let world = try World()
    defer { world.close() }
    let added = try world.run(["backend", "add", "ex", "--adapter", "example", "--set", "base_url=http://127.0.0.1:9"])
    #expect(added.result.status == 0, "\(added.result)")
    #expect(added.loaderRuns == 1, "the first load asks the loader")
    var status = stat()
    try #require(stat(world.cacheFile, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
    try #require(stat((world.cacheFile as NSString).deletingLastPathComponent, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o700)

    let shown = try world.run(["backend", "show", "ex"])
    #expect(shown.result.status == 0, "\(shown.result)")
    #expect(shown.loaderRuns == 0, "the verdict is kept: no fork of the loader")

    // A new version of the adapter is checked again.
    try CAdapterCompiler.build(
      "example.c", name: "example", defines: ["EXAMPLE_VERSION=2"],
      linkerArguments: ["-L", (world.library as NSString).deletingLastPathComponent, "-Wl,--no-as-needed", "-ldep", "-Wl,-rpath,$ORIGIN/lib"],
      into: (world.adapter as NSString).deletingLastPathComponent)
    #expect(try world.run(["backend", "show", "ex"]).loaderRuns == 1)
    #expect(try world.run(["backend", "show", "ex"]).loaderRuns == 0)
  }

  @Test func aMalformedOrWritableCacheIsIgnoredAndRewritten() throws {
    let world = try World()
    defer { world.close() }
    try world.sandbox.ok(["backend", "add", "ex", "--adapter", "example", "--set", "base_url=http://127.0.0.1:9"])
    try "{\"version\": 1, \"adapters\": {".write(toFile: world.cacheFile, atomically: false, encoding: .utf8)
    #expect(try world.run(["backend", "show", "ex"]).loaderRuns == 1)
    #expect(try world.run(["backend", "show", "ex"]).loaderRuns == 0, "rewritten")

    chmod(world.cacheFile, 0o666)
    #expect(try world.run(["backend", "show", "ex"]).loaderRuns == 1, "a cache others could write is not trusted")
    var status = stat()
    try #require(stat(world.cacheFile, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
    #expect(try world.run(["backend", "show", "ex"]).loaderRuns == 0)
  }

  /// A library replaced in place by one that must be refused, with its size and mtime set back
  /// to the old ones: only its ctime tells, and the verdict is not used.
  @Test func aDependencySwappedWithTheSameSizeAndMtimeIsRefused() throws {
    let world = try World()
    defer { world.close() }
    try world.sandbox.ok(["backend", "add", "ex", "--adapter", "example", "--set", "base_url=http://127.0.0.1:9"])
    #expect(try world.run(["backend", "show", "ex"]).loaderRuns == 0)

    let scratch = try ScratchDirectory()
    let bad = try CAdapterCompiler.library(
      "planted.c", at: scratch.path + "/libdep.so", defines: ["SENTINEL=\"\(scratch.path)/ran\""],
      linkerArguments: ["-Wl,-rpath,relative"])
    var good = try Data(contentsOf: URL(fileURLWithPath: world.library))
    var replacement = try Data(contentsOf: URL(fileURLWithPath: bad))
    // The same size: the shorter one padded with zeros after its end, which the loader ignores.
    let size = max(good.count, replacement.count)
    good.append(Data(count: size - good.count))
    replacement.append(Data(count: size - replacement.count))
    try good.write(to: URL(fileURLWithPath: world.library))
    #expect(try world.run(["backend", "show", "ex"]).result.status == 0)
    var before = stat()
    try #require(stat(world.library, &before) == 0)

    let handle = try #require(FileHandle(forWritingAtPath: world.library))
    try handle.write(contentsOf: replacement)
    try handle.close()
    var times = [before.st_atim, before.st_mtim]
    try #require(utimensat(AT_FDCWD, world.library, &times, 0) == 0)
    var after = stat()
    try #require(stat(world.library, &after) == 0)
    try #require(after.st_size == before.st_size && after.st_ino == before.st_ino)
    try #require(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
    try #require(after.st_ctim.tv_sec != before.st_ctim.tv_sec || after.st_ctim.tv_nsec != before.st_ctim.tv_nsec)

    let shown = try world.run(["backend", "show", "ex"])
    #expect(shown.loaderRuns == 1, "checked again")
    #expect(shown.result.status == 9, "\(shown.result)")
    #expect(shown.result.standardError.contains("library libdep.so (\(world.library)): RUNPATH entry 'relative' is relative"), "\(shown.result)")
  }

  /// The loader tries subdirectories of each searched directory first (glibc-hwcaps/x86-64-v2,
  /// and before glibc 2.37 tls/, x86_64/ and their combinations): a library planted in one,
  /// existing when the verdict was kept or made afterwards in one that existed, is a change,
  /// and is refused.
  @Test(arguments: [("tls", true), ("glibc-hwcaps/x86-64-v2", true), ("tls/x86_64", false)])
  func aLibraryPlantedInASubdirectoryTheLoaderTriesIsRefused(_ subdirectory: String, existing: Bool) throws {
    let world = try World()
    defer { world.close() }
    let libraries = (world.library as NSString).deletingLastPathComponent
    let tried = libraries + "/" + subdirectory
    func make(_ directory: String) throws {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      var path = directory
      while path != libraries {
        chmod(path, 0o755)
        path = (path as NSString).deletingLastPathComponent
      }
    }
    try make(existing ? tried : (tried as NSString).deletingLastPathComponent)
    try world.sandbox.ok(["backend", "add", "ex", "--adapter", "example", "--set", "base_url=http://127.0.0.1:9"])
    #expect(try world.run(["backend", "show", "ex"]).loaderRuns == 0)

    if !existing { try make(tried) }
    let sentinel = world.sandbox.keyring.root + "/planted-ran"
    let planted = try CAdapterCompiler.library(
      "planted.c", at: tried + "/libdep.so", defines: ["SENTINEL=\"\(sentinel)\""])
    chmod(planted, 0o666)
    let shown = try world.run(["backend", "show", "ex"])
    #expect(shown.loaderRuns == 1, "checked again")
    #expect(shown.result.status == 9, "\(shown.result)")
    #expect(shown.result.standardError.contains("library libdep.so (\(planted)): writable by group or others"), "\(shown.result)")
    #expect(!FileManager.default.fileExists(atPath: sentinel), "the planted library never ran")
  }

  /// A library planted in a directory the loader searches before the one it found the library
  /// in changes what it would load: the directory's stamp tells, and the plant is refused.
  @Test func aLibraryPlantedEarlierInTheSearchPathIsRefused() throws {
    let world = try World()
    defer { world.close() }
    let adapters = (world.adapter as NSString).deletingLastPathComponent
    let first = adapters + "/first"
    try FileManager.default.createDirectory(atPath: first, withIntermediateDirectories: false)
    chmod(first, 0o755)
    try CAdapterCompiler.build(
      "example.c", name: "example",
      linkerArguments: ["-L", adapters + "/lib", "-Wl,--no-as-needed", "-ldep", "-Wl,-rpath,$ORIGIN/first:$ORIGIN/lib"],
      into: adapters)
    try world.sandbox.ok(["backend", "add", "ex", "--adapter", "example", "--set", "base_url=http://127.0.0.1:9"])
    #expect(try world.run(["backend", "show", "ex"]).loaderRuns == 0)

    let planted = first + "/libdep.so"
    try FileManager.default.copyItem(atPath: world.library, toPath: planted)
    chmod(planted, 0o664)
    let shown = try world.run(["backend", "show", "ex"])
    #expect(shown.loaderRuns == 1, "checked again")
    #expect(shown.result.status == 9, "\(shown.result)")
    #expect(shown.result.standardError.contains("library libdep.so (\(planted)): writable by group or others"), "\(shown.result)")
  }
}
