import Foundation
import TestSupport
import Testing

/// The dependency check (`ld.so` in trace mode) runs when the adapter or what the loader
/// resolved for it changed, not on every load: its passing verdict is kept in the user's cache
/// with each file's device, inode, size, mtime and ctime, and re-checked by stat alone.
@Suite(.blocking) struct AdapterVettingCacheTests {
  @Test func aLoadWithNothingChangedDoesNotRunTheLoader() throws {
    let world = try Fixture.adapterWithADependency()
    defer { world.close() }
    let added = try world.runCountingLoader(["backend", "add", "ex", "--adapter", "example", "--set", "base_url=http://127.0.0.1:9"])
    #expect(added.result.status == 0, "\(added.result)")
    #expect(added.loaderRuns == 1, "the first load asks the loader")
    var status = stat()
    try #require(stat(world.vettingCacheFile, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
    try #require(stat((world.vettingCacheFile as NSString).deletingLastPathComponent, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o700)

    let shown = try world.runCountingLoader(["backend", "show", "ex"])
    #expect(shown.result.status == 0, "\(shown.result)")
    #expect(shown.loaderRuns == 0, "the verdict is kept: no fork of the loader")

    // A new version of the adapter is checked again.
    try CAdapterCompiler.build(
      "example.c", name: "example", defines: ["EXAMPLE_VERSION=2"],
      linkerArguments: ["-L", (world.dependencyFile as NSString).deletingLastPathComponent, "-Wl,--no-as-needed", "-ldep", "-Wl,-rpath,$ORIGIN/lib"],
      into: (world.adapterFile as NSString).deletingLastPathComponent)
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).loaderRuns == 1)
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).loaderRuns == 0)
  }

  @Test func aMalformedOrWritableCacheIsIgnoredAndRewritten() throws {
    let world = try Fixture.adapterWithADependency()
    defer { world.close() }
    try world.sandbox.addBackend("ex", adapter: "example", settings: ["base_url=http://127.0.0.1:9"])
    try "{\"version\": 1, \"adapters\": {".write(toFile: world.vettingCacheFile, atomically: false, encoding: .utf8)
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).loaderRuns == 1)
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).loaderRuns == 0, "rewritten")

    chmod(world.vettingCacheFile, 0o666)
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).loaderRuns == 1, "a cache others could write is not trusted")
    var status = stat()
    try #require(stat(world.vettingCacheFile, &status) == 0)
    #expect(status.st_mode & 0o777 == 0o600)
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).loaderRuns == 0)
  }

  /// A library replaced in place by one that must be refused, with its size and mtime set back
  /// to the old ones: only its ctime tells, and the verdict is not used.
  @Test func aDependencySwappedWithTheSameSizeAndMtimeIsRefused() throws {
    let world = try Fixture.adapterWithADependency()
    defer { world.close() }
    try world.sandbox.addBackend("ex", adapter: "example", settings: ["base_url=http://127.0.0.1:9"])
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).loaderRuns == 0)

    let scratch = try ScratchDirectory()
    let bad = try CAdapterCompiler.library(
      "planted.c", at: scratch.path + "/libdep.so", defines: ["SENTINEL=\"\(scratch.path)/ran\""],
      linkerArguments: ["-Wl,-rpath,relative"])
    var good = try Data(contentsOf: URL(fileURLWithPath: world.dependencyFile))
    var replacement = try Data(contentsOf: URL(fileURLWithPath: bad))
    // The same size: the shorter one padded with zeros after its end, which the loader ignores.
    let size = max(good.count, replacement.count)
    good.append(Data(count: size - good.count))
    replacement.append(Data(count: size - replacement.count))
    try good.write(to: URL(fileURLWithPath: world.dependencyFile))
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).result.status == 0)
    var before = stat()
    try #require(stat(world.dependencyFile, &before) == 0)

    let handle = try #require(FileHandle(forWritingAtPath: world.dependencyFile))
    try handle.write(contentsOf: replacement)
    try handle.close()
    var times = [before.st_atim, before.st_mtim]
    try #require(utimensat(AT_FDCWD, world.dependencyFile, &times, 0) == 0)
    var after = stat()
    try #require(stat(world.dependencyFile, &after) == 0)
    try #require(after.st_size == before.st_size && after.st_ino == before.st_ino)
    try #require(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
    try #require(after.st_ctim.tv_sec != before.st_ctim.tv_sec || after.st_ctim.tv_nsec != before.st_ctim.tv_nsec)

    let shown = try world.runCountingLoader(["backend", "show", "ex"])
    #expect(shown.loaderRuns == 1, "checked again")
    #expect(shown.result.status == 9, "\(shown.result)")
    #expect(shown.result.standardError.contains("library libdep.so (\(world.dependencyFile)): RUNPATH entry 'relative' is relative"), "\(shown.result)")
  }

  /// The loader tries subdirectories of each searched directory first (glibc-hwcaps/x86-64-v2,
  /// and before glibc 2.37 tls/, x86_64/ and their combinations): a library planted in one,
  /// existing when the verdict was kept or made afterwards in one that existed, is a change,
  /// and is refused.
  @Test(arguments: [("tls", true), ("glibc-hwcaps/x86-64-v2", true), ("tls/x86_64", false)])
  func aLibraryPlantedInASubdirectoryTheLoaderTriesIsRefused(_ subdirectory: String, existing: Bool) throws {
    let world = try Fixture.adapterWithADependency()
    defer { world.close() }
    let libraries = (world.dependencyFile as NSString).deletingLastPathComponent
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
    try world.sandbox.addBackend("ex", adapter: "example", settings: ["base_url=http://127.0.0.1:9"])
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).loaderRuns == 0)

    if !existing { try make(tried) }
    let sentinel = world.sandbox.keyring.root + "/planted-ran"
    let planted = try CAdapterCompiler.library(
      "planted.c", at: tried + "/libdep.so", defines: ["SENTINEL=\"\(sentinel)\""])
    chmod(planted, 0o666)
    let shown = try world.runCountingLoader(["backend", "show", "ex"])
    #expect(shown.loaderRuns == 1, "checked again")
    #expect(shown.result.status == 9, "\(shown.result)")
    #expect(shown.result.standardError.contains("library libdep.so (\(planted)): writable by group or others"), "\(shown.result)")
    #expect(!FileManager.default.fileExists(atPath: sentinel), "the planted library never ran")
  }

  /// A library planted in a directory the loader searches before the one it found the library
  /// in changes what it would load: the directory's stamp tells, and the plant is refused.
  @Test func aLibraryPlantedEarlierInTheSearchPathIsRefused() throws {
    let world = try Fixture.adapterWithADependency()
    defer { world.close() }
    let adapters = (world.adapterFile as NSString).deletingLastPathComponent
    let first = adapters + "/first"
    try FileManager.default.createDirectory(atPath: first, withIntermediateDirectories: false)
    chmod(first, 0o755)
    try CAdapterCompiler.build(
      "example.c", name: "example",
      linkerArguments: ["-L", adapters + "/lib", "-Wl,--no-as-needed", "-ldep", "-Wl,-rpath,$ORIGIN/first:$ORIGIN/lib"],
      into: adapters)
    try world.sandbox.addBackend("ex", adapter: "example", settings: ["base_url=http://127.0.0.1:9"])
    #expect(try world.runCountingLoader(["backend", "show", "ex"]).loaderRuns == 0)

    let planted = first + "/libdep.so"
    try FileManager.default.copyItem(atPath: world.dependencyFile, toPath: planted)
    chmod(planted, 0o664)
    let shown = try world.runCountingLoader(["backend", "show", "ex"])
    #expect(shown.loaderRuns == 1, "checked again")
    #expect(shown.result.status == 9, "\(shown.result)")
    #expect(shown.result.standardError.contains("library libdep.so (\(planted)): writable by group or others"), "\(shown.result)")
  }
}

extension Fixture {
  /// The example adapter, built needing libdep.so from `$ORIGIN/lib`.
  static func adapterWithADependency() throws -> Fixture {
    let world = try Fixture()
    let adapters = try world.sandbox.userAdapterDirectory()
    let libraries = adapters + "/lib"
    try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
    chmod(libraries, 0o755)
    // Its constructor leaves a file outside the searched directory, which it would change.
    try CAdapterCompiler.library(
      "planted.c", at: libraries + "/libdep.so", defines: ["SENTINEL=\"\(world.root)/ran\""])
    try CAdapterCompiler.build(
      "example.c", name: "example",
      linkerArguments: ["-L", libraries, "-Wl,--no-as-needed", "-ldep", "-Wl,-rpath,$ORIGIN/lib"], into: adapters)
    return world
  }

  /// The example adapter's file.
  var adapterFile: String { sandbox.environment["XDG_DATA_HOME"]! + "/accounts/adapters/example.so" }

  /// The library it needs.
  var dependencyFile: String { sandbox.environment["XDG_DATA_HOME"]! + "/accounts/adapters/lib/libdep.so" }

  /// Where the dependency check keeps its verdicts.
  var vettingCacheFile: String { home + "/.cache/accounts/adapter-checks.json" }

  /// Runs `accounts ARGUMENTS` and returns it with the number of times it started the loader.
  func runCountingLoader(_ arguments: [String]) throws -> (result: ProcessResult, loaderRuns: Int) {
    let log = root + "/spawns.log"
    try? FileManager.default.removeItem(atPath: log)
    let result = try sandbox.run(arguments, environment: Interposer.environment().merging(["SPAWNS_LOG": log]) { $1 })
    let spawns = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    let loaderRuns = spawns.split(separator: "\n").filter { $0.contains("/ld-linux") || $0.contains("/ld.so") }.count
    return (result, loaderRuns)
  }
}
