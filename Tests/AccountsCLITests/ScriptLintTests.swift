import Foundation
import TestSupport
import Testing

/// The scripts tests and demos start with (scripts/, scripts/lib/) pass shellcheck at its
/// warning level: what it warns about there (mkdir -m with -p, eval of an array) is a real slip.
@Suite(.blocking) struct ScriptLintTests {
  @Test func scriptsPassShellcheck() throws {
    let scripts = PackagePaths.root.appendingPathComponent("scripts").path
    let files = ["demo", "generate", "setup", "test", "with-keepassxc", "with-keyring", "lib/tour", "lib/dbus-daemon-logged"]
      .map { scripts + "/" + $0 }
      .filter { FileManager.default.fileExists(atPath: $0) }
    #expect(files.count >= 6)
    let result = try runProcess(
      "/usr/bin/shellcheck", ["--severity=warning"] + files, environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
    #expect(result.status == 0, "shellcheck: \(result.standardOutput)\(result.standardError)")
  }
}
