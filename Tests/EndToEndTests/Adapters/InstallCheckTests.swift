import Foundation
import TestSupport
import Testing

/// accounts' own libraries are checked like adapters before they are loaded, and `accounts
/// adapters` says so when no adapter at all can be loaded. Each test runs a copy of the
/// built program in a directory of its own: the executable, and its private library beside it.
@Suite(.blocking) struct InstallCheckTests {
  /// A copy of `accounts` and its private library in `directory` (no built-in adapters).
  func install(in directory: String) throws -> String {
    for name in ["accounts", "libAccountsPrivate.so"] {
      try copyExecutable(from: PackagePaths.products.appendingPathComponent(name).path, to: "\(directory)/\(name)")
    }
    return directory + "/accounts"
  }

  /// The adapter host is in the executable: a private library others can write is never
  /// loaded, and adapter commands do not need it; doctor's install row names it.
  @Test func aPrivateLibraryOthersCanWriteLeavesTheAdaptersWorking() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let scratch = try ScratchDirectory()
    let accounts = try install(in: scratch.path)
    let library = scratch.path + "/libAccountsPrivate.so"
    chmod(library, 0o666)
    try CAdapterCompiler.build("example.c", name: "example", into: try sandbox.userAdapterDirectory())
    let result = try runProcess(accounts, ["adapters"], environment: sandbox.environment, timeout: 60)
    #expect(result.status == 0, "\(result)")
    #expect(result.standardOutput.contains("example"), "\(result)")
    let doctor = try runProcess(accounts, ["doctor"], environment: sandbox.environment, timeout: 60)
    #expect(squeezed(doctor.standardOutput).contains("FAIL install \(library): writable by group or others (mode 0666)"), "\(doctor)")
  }

  @Test func aSecretServiceLibraryOthersCanWriteIsNotLoaded() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let scratch = try ScratchDirectory()
    let accounts = try install(in: scratch.path)
    let library = scratch.path + "/libAccountsPrivate.so"
    chmod(library, 0o666)
    let result = try runProcess(accounts, ["lock"], environment: sandbox.environment, timeout: 60)
    #expect(result.status == 7, "\(result)")
    // The refusal's own fix, once: not libsecret's, which is for a missing dependency.
    #expect(
      result.standardError
        == "accounts: cannot load accounts' Secret Service support: refusing to load \(library): "
        + "writable by group or others (mode 0666); run: chmod go-w \(library)\n", "\(result)")
  }

  /// A library of another accounts_private.h version is refused by its one fix, and doctor's
  /// install row loads it to say so.
  @Test func aPrivateLibraryOfAnotherVersionIsRefused() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let scratch = try ScratchDirectory()
    let accounts = try install(in: scratch.path)
    let library = scratch.path + "/libAccountsPrivate.so"
    try FileManager.default.removeItem(atPath: library)
    try CAdapterCompiler.library("private-other-version.c", at: library)
    let result = try runProcess(accounts, ["lock"], environment: sandbox.environment, timeout: 60)
    #expect(result.status == 7, "\(result)")
    #expect(
      result.standardError
        == "accounts: cannot load accounts' Secret Service support: \(library) does not speak version 3 of "
        + "accounts_private.h; reinstall accounts (`make install` in its source tree)\n", "\(result)")
    let doctor = try runProcess(accounts, ["doctor"], environment: sandbox.environment, timeout: 60)
    #expect(doctor.status == 7, "\(doctor)")
    #expect(
      squeezed(doctor.standardOutput).contains(
        "FAIL install \(library) does not speak version 3 of accounts_private.h\n fix: reinstall accounts"), "\(doctor)")
  }

  /// A truncated private library is refused before dlopen, which would map its missing end
  /// and die of SIGBUS: exit 7 for a secret command and a doctor row, while adapter commands,
  /// which do not need it, go on.
  @Test func aTruncatedPrivateLibraryIsRefused() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let scratch = try ScratchDirectory()
    let accounts = try install(in: scratch.path)
    let library = scratch.path + "/libAccountsPrivate.so"
    let whole = try Data(contentsOf: URL(fileURLWithPath: library))
    // An eighth: inside the first loaded segment (the debug sections, unloaded, come last).
    try whole.prefix(whole.count / 8).write(to: URL(fileURLWithPath: library))
    try CAdapterCompiler.build("example.c", name: "example", into: try sandbox.userAdapterDirectory())
    let refusal = "refusing to load \(library): truncated or malformed (a malformed ELF file: loaded segment"
    let lock = try runProcess(accounts, ["lock"], environment: sandbox.environment, timeout: 60)
    #expect(lock.status == 7, "\(lock)")
    #expect(lock.standardError.contains(refusal), "\(lock)")
    #expect(lock.standardError.contains("ends past the end of the file); reinstall accounts"), "\(lock)")
    let adapters = try runProcess(accounts, ["adapters"], environment: sandbox.environment, timeout: 60)
    #expect(adapters.status == 0 && adapters.standardOutput.contains("example"), "\(adapters)")
    let doctor = try runProcess(accounts, ["doctor"], environment: sandbox.environment, timeout: 60)
    #expect(doctor.status == 7, "\(doctor)")
    #expect(squeezed(doctor.standardOutput).contains("FAIL install \(library): truncated or malformed"), "\(doctor)")
  }

  @Test func doctorNamesAnInstallDirectoryOthersCanWrite() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let scratch = try ScratchDirectory()
    chmod(scratch.path, 0o777)
    let accounts = try install(in: scratch.path)
    let doctor = try runProcess(accounts, ["doctor"], environment: sandbox.environment, timeout: 60)
    #expect(doctor.status != 0, "\(doctor)")
    #expect(squeezed(doctor.standardOutput).contains("FAIL install directory \(scratch.path) is writable by group or others (mode 0777)"), "\(doctor)")
  }

  /// No adapter that loads is a failure (exit 9), whether none was found or all were refused;
  /// some refused beside others that load is not.
  @Test func adaptersFailsWhenNoAdapterLoads() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let scratch = try ScratchDirectory()
    let accounts = try install(in: scratch.path)
    let none = try runProcess(accounts, ["adapters"], environment: sandbox.environment, timeout: 60)
    #expect(none.status == 9, "\(none)")
    let directory = try sandbox.userAdapterDirectory()
    let path = try CAdapterCompiler.build("example.c", name: "example", into: directory)
    chmod(path, 0o666)
    let refused = try runProcess(accounts, ["adapters"], environment: sandbox.environment, timeout: 60)
    #expect(refused.status == 9, "\(refused)")
    #expect(refused.standardError == "accounts: no adapter could be loaded; see the reasons above\n", "\(refused)")
    #expect(try sandbox.run(["adapters"]).status == 0, "the built-in adapters load beside the refused one")
  }

  /// A file name that is not UTF-8 is listed with its bytes as \xNN.
  @Test func aFileNameThatIsNotUTF8IsShownByItsBytes() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let directory = try sandbox.userAdapterDirectory()
    let name: [UInt8] = Array(directory.utf8) + Array("/bad".utf8) + [0xFF, 0xFE] + Array(".so".utf8) + [0]
    let descriptor = name.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT, 0o644) }
    try #require(descriptor >= 0)
    close(descriptor)
    let listed = try sandbox.run(["adapters"])
    #expect(listed.standardOutput.contains("bad\\xff\\xfe  \(directory)/bad\\xff\\xfe.so\n  refused: file name is not a valid adapter name\n"), "\(listed)")
  }
}
