import Foundation
import TestSupport
import Testing

@testable import AccountsCLI

/// VERSION is the one version: its first line is the version, its second the release date. The
/// binary (Version.swift, which scripts/generate writes from it), the man pages' .TH lines and
/// the package (scripts/deb) take them from there.
@Suite struct VersionTests {
  static func versionFile() throws -> (version: String, date: String) {
    let text = try String(contentsOf: PackagePaths.root.appendingPathComponent("VERSION"), encoding: .utf8)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 2, "VERSION: the version, then the release date (YYYY-MM-DD)")
    return (lines.first ?? "", lines.count > 1 ? lines[1] : "")
  }

  @Test func binaryVersionIsTheVersionFiles() throws {
    let file = try Self.versionFile()
    #expect(file.version.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+(~[a-z0-9.]+)?/) != nil, "\(file.version)")
    #expect(
      AccountsCommandLine.version == file.version,
      "Version.swift is not VERSION's: run scripts/generate and commit the result")
  }

  @Test func manPagesCarryTheVersionAndDate() throws {
    let file = try Self.versionFile()
    #expect(file.date.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}/) != nil, "\(file.date)")
    for (page, header) in [
      ("man/accounts.1", "ACCOUNTS 1"), ("man/accounts-adapter.7", "ACCOUNTS-ADAPTER 7"),
      ("man/accounts-config.5", "ACCOUNTS-CONFIG 5"),
    ] {
      let text = try String(contentsOf: PackagePaths.root.appendingPathComponent(page), encoding: .utf8)
      let th = text.split(separator: "\n").first { $0.hasPrefix(".TH ") }.map(String.init)
      #expect(
        th?.hasPrefix(".TH \(header) \"\(file.date)\" \"accounts \(file.version)\" ") == true,
        "\(page): \(th ?? "no .TH")")
    }
  }
}
