import AccountsContract
import AccountsSystem
import Foundation
import Testing
import TestSupport

@testable import AdapterHost

/// The checks before and after dlopen (SPEC §5): each refusal names its reason, and a refused
/// adapter does not stop the others.
@Suite(.blocking) struct AdapterLoaderTests {
  let scratch: ScratchDirectory

  init() throws { scratch = try ScratchDirectory() }

  func load(_ path: String, name: String, check: AdapterFileCheck = AdapterFileCheck()) -> Result<LoadedAdapter, Refusal> {
    AdapterLoader.load(path, name: name, check: check)
  }

  func refusal(_ path: String, name: String, check: AdapterFileCheck = AdapterFileCheck()) -> String {
    switch load(path, name: name, check: check) {
    case .success: "loaded"
    case .failure(let refusal): refusal.reason
    }
  }

  @Test func aCAdapterBuiltFromTheHeaderAloneLoads() throws {
    let path = try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    let adapter = try load(path, name: "example").get()
    #expect(adapter.description.name == "example")
    #expect(adapter.description.abiText == "1.3")
    #expect(adapter.description.sessionCheck == .onlyWith([]), "its CHECK never asks the backend")
    #expect(adapter.description.settings.map(\.name) == ["base_url", "login_path", "otp_field"])
    #expect(adapter.description.setting(named: "login_path")?.defaultValue == "login")
    #expect(adapter.description.setting(named: "login_path")?.isOptional == true)
    #expect(adapter.description.setting(named: "login_path")?.isOneTimeCode == false)
    #expect(adapter.description.setting(named: "otp_field")?.isOneTimeCode == true)
  }

  /// Descriptors of 1.0 and 1.1 end before `flags`: they load, their CHECK undeclared.
  @Test(arguments: [(CAdapterCompiler.Header.version1_0, "1.0"), (.version1_1, "1.1")])
  func olderDescriptorsLoadWithTheirChecksUndeclared(header: CAdapterCompiler.Header, abi: String) throws {
    let path = try CAdapterCompiler.build("example.c", name: "example", header: header, into: scratch.path)
    let adapter = try load(path, name: "example").get()
    #expect(adapter.description.abiText == abi)
    #expect(adapter.description.sessionCheck == .undeclared)
    #expect(AdapterDescription.SessionCheck.undeclared.asks(settings: [:]), "an undeclared CHECK always runs")
  }

  /// The built-in adapters ask the backend only with check_path.
  @Test(arguments: ["plain", "hmac", "signed"])
  func theBuiltInAdaptersCheckOnlyWithACheckPath(name: String) throws {
    let path = PackagePaths.products.appendingPathComponent("lib\(name).so").path
    let check = try load(path, name: name).get().description.sessionCheck
    #expect(check == .onlyWith(["check_path"]))
    #expect(!check.asks(settings: ["base_url": "https://x.example"]))
    #expect(!check.asks(settings: ["check_path": ""]), "an empty value is none")
    #expect(check.asks(settings: ["check_path": "check"]))
  }

  /// A load keeps the declared check with the file's verdict: a later process knows it without
  /// loading the file, until the file changes.
  @Test func aLoadKeepsTheDeclaredCheckForTheNextProcess() throws {
    let path = try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    let cache = VerdictCache(path: scratch.path + "/cache/accounts/adapter-checks.json", userID: getuid())
    #expect(AdapterLoader.knownSessionCheck(path, cache: cache) == nil, "nothing kept yet")
    _ = try AdapterLoader.load(path, name: "example", cache: cache).get()
    // What a process that has not loaded it finds: the kept verdict alone.
    #expect(try kept(path, cache) == .onlyWith([]))
    let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try file.seekToEnd()
    try file.write(contentsOf: Data([0]))
    try file.close()
    #expect(try kept(path, cache) == nil, "changed since")
  }

  func kept(_ path: String, _ cache: VerdictCache) throws -> AdapterDescription.SessionCheck? {
    let key = VerdictCache.key(loader: try LibraryDependencies.systemLoader.get(), userID: getuid())
    return cache.sessionCheck(of: try AdapterFileCheck().open(path).get(), key: key, isLoaded: { _ in false })
  }

  @Test func groupWritableFileIsRefused() throws {
    let path = try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    chmod(path, 0o664)
    #expect(refusal(path, name: "example") == "writable by group or others (mode 0664); run: chmod go-w \(path)")
  }

  @Test func worldWritableDirectoryIsRefused() throws {
    let directory = scratch.path + "/open"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    chmod(directory, 0o777)
    let path = try CAdapterCompiler.build("example.c", name: "example", into: directory)
    #expect(refusal(path, name: "example").hasPrefix("directory \(directory) is writable by group or others (mode 0777)"))
  }

  @Test func groupWritableDirectoryIsRefused() throws {
    let directory = scratch.path + "/shared"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    chmod(directory, 0o775)
    let path = try CAdapterCompiler.build("example.c", name: "example", into: directory)
    #expect(refusal(path, name: "example") == "directory \(directory) is writable by group or others (mode 0775); run: chmod go-w \(directory)")
  }

  /// Only root's sticky directories are trusted: in anyone else's, its owner can replace what
  /// others put there, and others can add names.
  @Test func stickyDirectoryNotOwnedByRootIsRefused() throws {
    let directory = scratch.path + "/sticky"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    chmod(directory, 0o1777)
    let path = try CAdapterCompiler.build("example.c", name: "example", into: directory)
    var check = AdapterFileCheck()
    if getuid() == 0 {
      // Root owns what it creates: hand the directory and the file to someone else and check
      // as that someone, whose own sticky directory it then is.
      try #require(chown(directory, 65534, 65534) == 0 && chown(path, 65534, 65534) == 0)
      check = AdapterFileCheck(userID: 65534)
    }
    #expect(refusal(path, name: "example", check: check) == "directory \(directory) is writable by group or others (mode 1777); run: chmod go-w \(directory)")
  }

  @Test func rootOwnedStickyDirectoryIsAccepted() throws {
    // The scratch directory is in /tmp: root-owned, world-writable, sticky.
    var status = stat()
    stat("/tmp", &status)
    try #require(status.st_uid == 0 && status.st_mode & S_ISVTX != 0 && status.st_mode & S_IWOTH != 0)
    let path = try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    #expect(refusal(path, name: "example") == "loaded")
  }

  @Test func fileOwnedByAnotherUserIsRefused() throws {
    let path = try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    if getuid() == 0 {
      try #require(chown(path, 65534, 65534) == 0)
      #expect(refusal(path, name: "example").hasPrefix("owned by uid 65534, not by you (uid 0) or root"))
    } else {
      // Not root: the file is ours, and so is the directory it is in, which the path check
      // would refuse first: check the file's own rule as if we were someone else.
      var status = stat()
      try #require(stat(path, &status) == 0)
      let stranger = AdapterFileCheck(userID: getuid() + 1)
      #expect(stranger.checkFile(status, path: path)?.reason.hasPrefix("owned by uid \(getuid()), not by you") == true)
    }
  }

  @Test(.enabled(if: getuid() == 0, "needs root to give a directory away (CI runs as root)"))
  func directoryOwnedByAnotherUserIsRefused() throws {
    let directory = scratch.path + "/theirs"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    let path = try CAdapterCompiler.build("example.c", name: "example", into: directory)
    try #require(chown(directory, 65534, 65534) == 0)
    #expect(refusal(path, name: "example") == "directory \(directory) is owned by uid 65534, not by you or root")
  }

  @Test func fifoAndDirectoryAreNotRegularFiles() throws {
    let fifo = scratch.path + "/fifo.so"
    try #require(mkfifo(fifo, 0o644) == 0)
    #expect(refusal(fifo, name: "fifo") == "not a regular file (a FIFO); run: mv \(fifo) \(fifo).moved")
    let directory = scratch.path + "/dir.so"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    #expect(refusal(directory, name: "dir") == "not a regular file (a directory); run: mv \(directory) \(directory).moved")
  }

  @Test func textFileIsNotELF() throws {
    let path = scratch.path + "/text.so"
    try "#!/bin/sh\necho hi\n".write(toFile: path, atomically: false, encoding: .utf8)
    chmod(path, 0o644)
    #expect(refusal(path, name: "text") == "not an ELF shared library")
  }

  @Test func libraryWithoutTheEntrySymbolIsRefused() throws {
    let path = try CAdapterCompiler.hostile("MODE_NO_ENTRY", name: "noentry", into: scratch.path)
    #expect(refusal(path, name: "noentry") == "no accounts_adapter_v1 symbol: not an accounts adapter, or built for another ABI")
  }

  @Test func otherMajorVersionIsRefused() throws {
    let v2 = try CAdapterCompiler.hostile("MODE_V2_SYMBOL", name: "vtwo", into: scratch.path)
    #expect(refusal(v2, name: "vtwo").hasPrefix("built for adapter ABI 2.x (exports accounts_adapter_v2)"))
    let abi2 = try CAdapterCompiler.hostile("MODE_ABI2", name: "abitwo", into: scratch.path)
    #expect(refusal(abi2, name: "abitwo") == "built for adapter ABI 2.0; this accounts speaks 1.3")
    let newer = try CAdapterCompiler.hostile("MODE_NEWER_MINOR", name: "newer", into: scratch.path)
    #expect(refusal(newer, name: "newer").contains("ABI 1.99, newer than this accounts (1.3); update accounts"))
  }

  @Test func entryReturningNullIsRefused() throws {
    let path = try CAdapterCompiler.hostile("MODE_NULL_ENTRY", name: "null", into: scratch.path)
    #expect(refusal(path, name: "null").hasPrefix("accounts_adapter_v1 returned no descriptor"))
  }

  @Test func descriptorMustNameTheFileAndHaveItsFunctions() throws {
    let named = try CAdapterCompiler.hostile("MODE_WRONG_NAME", name: "honest", into: scratch.path)
    #expect(refusal(named, name: "honest").hasPrefix("its descriptor says name 'someone-else'"))
    let stepless = try CAdapterCompiler.hostile("MODE_NO_STEP", name: "stepless", into: scratch.path)
    #expect(refusal(stepless, name: "stepless") == "its descriptor lacks session_new, step or session_free")
  }

  @Test func symbolicLinksAreCheckedAtTheirTarget() throws {
    let path = try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    let open = scratch.path + "/open"
    try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
    chmod(open, 0o777)
    let target = try CAdapterCompiler.build("example.c", name: "example", into: open)
    let goodLink = scratch.path + "/good.so"
    try FileManager.default.createSymbolicLink(atPath: goodLink, withDestinationPath: path)
    #expect(refusal(goodLink, name: "example") == "loaded")  // the name check uses the descriptor
    let badLink = scratch.path + "/bad.so"
    try FileManager.default.createSymbolicLink(atPath: badLink, withDestinationPath: target)
    #expect(refusal(badLink, name: "example").hasPrefix("directory \(open) is writable"))
  }

  /// The directory a link lives in counts, not only its target's: anyone could point a link
  /// in a world-writable directory somewhere else.
  @Test func aSymbolicLinkInAWorldWritableDirectoryIsRefused() throws {
    let path = try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    let open = scratch.path + "/open"
    try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
    chmod(open, 0o777)
    let link = open + "/example.so"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
    #expect(refusal(link, name: "example") == "directory \(open) is writable by group or others (mode 0777); run: chmod go-w \(open)")
  }

  @Test(.enabled(if: getuid() == 0, "needs root to give a link away (CI runs as root)"))
  func aStrangersSymbolicLinkInAStickyDirectoryIsRefused() throws {
    let path = try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    let sticky = scratch.path + "/sticky"
    try FileManager.default.createDirectory(atPath: sticky, withIntermediateDirectories: false)
    chmod(sticky, 0o1777)
    let theirs = sticky + "/theirs.so"
    try FileManager.default.createSymbolicLink(atPath: theirs, withDestinationPath: path)
    try #require(lchown(theirs, 65534, 65534) == 0)
    #expect(refusal(theirs, name: "example") == "symbolic link \(theirs) is owned by uid 65534, not by you or root, in the sticky directory \(sticky)")
    let mine = sticky + "/mine.so"
    try FileManager.default.createSymbolicLink(atPath: mine, withDestinationPath: path)
    #expect(refusal(mine, name: "example") == "loaded")
  }

  @Test func symbolicLinkLoopsEnd() throws {
    let first = scratch.path + "/first.so"
    let second = scratch.path + "/second.so"
    try FileManager.default.createSymbolicLink(atPath: first, withDestinationPath: second)
    try FileManager.default.createSymbolicLink(atPath: second, withDestinationPath: first)
    #expect(refusal(first, name: "first") == "more than 40 symbolic links in \(first)")
  }

  @Test func aRefusedAdapterLeavesTheOthersWorking() throws {
    try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    let bad = try CAdapterCompiler.hostile("MODE_ABI2", name: "bad", into: scratch.path)
    let later = scratch.path + "/later"
    try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: false)
    let shadowed = try CAdapterCompiler.build("example.c", name: "example", into: later)
    let catalog = AdapterCatalog(searchPath: AdapterSearchPath(directories: [.init(path: scratch.path), .init(path: later)]))

    let entries = catalog.entries()
    #expect(entries.map(\.name) == ["bad", "example", "example"])
    #expect(entries[0].refusal == "built for adapter ABI 2.0; this accounts speaks 1.3")
    #expect(entries[1].description?.name == "example")
    #expect(entries[2].shadowedBy == scratch.path + "/example.so" && entries[2].path == shadowed)

    #expect(try catalog.adapter(named: "example").description.path == scratch.path + "/example.so")
    #expect(throws: AdapterLoadError.refused(path: bad, reason: "built for adapter ABI 2.0; this accounts speaks 1.3")) {
      try catalog.adapter(named: "bad")
    }
    #expect(throws: AdapterLoadError.notFound(name: "exampel", searched: [scratch.path, later], known: ["bad", "example"])) {
      try catalog.adapter(named: "exampel")
    }
  }
}
