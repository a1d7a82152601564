import Foundation
import Testing

@testable import AccountsServices

struct InstalledFilesTests {
  @Test func aPackagedCopyIsReinstalledWithAptAndAnyOtherFromItsSourceTree() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("installed-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileManager.default.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: root + "/lib/accounts", withIntermediateDirectories: true)
    #expect(
      InstalledFiles.reinstallAdvice(executableDirectory: root + "/bin")
        == "reinstall accounts (`make install` in its source tree)")
    FileManager.default.createFile(atPath: root + "/lib/accounts/debian-package", contents: Data())
    #expect(
      InstalledFiles.reinstallAdvice(executableDirectory: root + "/bin")
        == "reinstall the package: `sudo apt install --reinstall ./accounts_VERSION_ARCH.deb` with the file it came "
        + "from, or `sudo apt install --reinstall accounts` from a repository that has it")
    #expect(InstalledFiles.reinstallAdvice(executableDirectory: nil) == "reinstall accounts (`make install` in its source tree)")
  }
}
