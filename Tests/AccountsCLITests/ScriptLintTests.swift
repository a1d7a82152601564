import Foundation
import TestSupport
import Testing

/// Every shell script of scripts/ and scripts/lib/ (the ones tests, demos, CI and packaging
/// start) passes shellcheck at its warning level: what it warns about there (mkdir -m with -p,
/// eval of an array) is a real slip. Found by their #! line, so a new script is checked too.
@Suite(.blocking) struct ScriptLintTests {
  @Test func scriptsPassShellcheck() throws {
    let scripts = PackagePaths.root.appendingPathComponent("scripts").path
    var files: [String] = []
    for directory in [scripts, scripts + "/lib"] {
      for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
        let path = directory + "/" + name
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
          let first = text.split(separator: "\n", maxSplits: 1).first,
          first.hasPrefix("#!"), first.hasSuffix("sh") || first.hasSuffix("bash")
        else { continue }
        files.append(path)
      }
    }
    #expect(files.count >= 12, "\(files)")
    #expect(files.contains(scripts + "/fuzz") && files.contains(scripts + "/check-package"))
    let result = try runProcess(
      "/usr/bin/shellcheck", ["--severity=warning"] + files, environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
    #expect(result.status == 0, "shellcheck: \(result.standardOutput)\(result.standardError)")
  }
}
