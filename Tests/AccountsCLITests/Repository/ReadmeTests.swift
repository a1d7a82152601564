import Foundation
import TestSupport
import Testing

/// README.md as a newcomer reads it: the two commands first (CI runs the second), then what
/// accounts is, how to install it, and only then the tour.
struct ReadmeTests {
  let text: String = {
    (try? String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
  }()

  @Test func startsWithTheTwoCommandsThenSaysWhatItIsAndHowToInstallBeforeTheTour() throws {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(Array(lines.prefix(4)) == ["# accounts", "", "```sh", lines[3]])
    #expect(lines[3].hasPrefix("scripts/demo "), "\(lines[3])")
    #expect(lines.contains { $0.hasPrefix("scripts/test ") })
    let headings = lines.filter { $0.hasPrefix("## ") }.map(String.init)
    #expect(Array(headings.prefix(2)) == ["## Install", "## A short tour"], "\(headings)")
    let description = try #require(text.range(of: "**accounts** is ").map { String(text[$0.lowerBound...].prefix(800)) })
    #expect(!description.hasPrefix("**accounts** is a QQ"), "QQ explained, not the first word")
    #expect(description.contains("the login window of the QQ messenger"))
  }

  @Test func saysWhereAllowInsecureTransportBelongs() {
    #expect(text.contains("`--set allow_insecure_transport=true`. Set it for a local test server only"))
  }

  @Test func saysUnderWhichLicense() {
    #expect(text.contains("## License") && text.contains("Apache License 2.0"))
    #expect(FileManager.default.fileExists(atPath: PackagePaths.root.appendingPathComponent("LICENSE").path))
  }
}
