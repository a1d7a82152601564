import Foundation
import TestSupport
import Testing

@testable import AccountsCLI
@testable import accounts_generate

/// completions/ and man/ are generated from the command table and committed; they must not
/// drift from it.
@Suite(.blocking) struct GeneratedFilesTests {
  @Test func committedFilesMatchTheCommandTable() throws {
    for file in try GeneratedFiles.all(root: PackagePaths.root.path) {
      let url = PackagePaths.root.appendingPathComponent(file.path)
      let committed = try? String(contentsOf: url, encoding: .utf8)
      #expect(
        committed == file.contents,
        "\(file.path) is out of date: run scripts/generate and commit the result")
    }
  }

  @Test func manPageRendersWithoutWarnings() throws {
    let page = ManRenderer.accounts1(CommandTable.all)
    let path = NSTemporaryDirectory() + "accounts-\(UUID().uuidString).1"
    try page.write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try runProcess(
      "/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-z", path], environment: ["PATH": "/usr/bin:/bin"])
    #expect(result.status == 0)
    #expect(result.standardError == "", "groff warnings: \(result.standardError)")
    let text = try runProcess(
      "/usr/bin/groff", ["-man", "-Tascii", "-P", "-cbu", path], environment: ["PATH": "/usr/bin:/bin"])
    for path in CommandTable.paths where !path.command.hidden {
      #expect(text.standardOutput.contains("accounts \(path.name)"), "man page documents \(path.name)")
    }
    #expect(text.standardOutput.contains("EXIT STATUS"))
    #expect(!text.standardOutput.contains("__complete"), "hidden commands stay out of the man page")
  }

  @Test func completionScriptsAreValidShell() throws {
    for (shell, arguments) in [("bash", ["-n"]), ("zsh", ["-n"]), ("fish", ["--no-execute"])] {
      let path = NSTemporaryDirectory() + "accounts-completion-\(UUID().uuidString)"
      try CompletionScripts.script(for: shell)!.write(toFile: path, atomically: true, encoding: .utf8)
      defer { try? FileManager.default.removeItem(atPath: path) }
      let result = try runProcess("/usr/bin/env", [shell] + arguments + [path], environment: ["PATH": "/usr/bin:/bin"])
      #expect(result.status == 0, "\(shell): \(result)")
    }
  }
}
