import Foundation
import TestSupport
import Testing

/// The shell scripts the tests, demos, CI, packaging and benchmarks start: every file of
/// scripts/, bench/ and .ci/ (and their subfolders) whose #! line names sh or bash, so a new
/// script is checked too.
private func shellScripts(under folders: [String]) throws -> [String] {
  var files: [String] = []
  for folder in folders {
    let root = PackagePaths.root.appendingPathComponent(folder).path
    guard let names = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] else { continue }
    for name in names.sorted() {
      let path = root + "/" + name
      guard let text = try? String(contentsOfFile: path, encoding: .utf8),
        let first = text.split(separator: "\n", maxSplits: 1).first,
        first.hasPrefix("#!"), first.hasSuffix("sh") || first.hasSuffix("bash")
      else { continue }
      files.append(path)
    }
  }
  return files
}

@Suite(.blocking) struct ScriptLintTests {
  /// Every script of scripts/ and .ci/ passes shellcheck at its warning level: what it warns
  /// about there (mkdir -m with -p, eval of an array) is a real slip.
  @Test func scriptsPassShellcheck() throws {
    let files = try shellScripts(under: ["scripts", ".ci"])
    let scripts = PackagePaths.script("") + "/"
    #expect(files.count >= 15, "\(files)")
    #expect(files.contains(scripts + "fuzz") && files.contains(scripts + "check-package"))
    #expect(files.contains(scripts + "lib/library-packages"))
    let result = try runProcess(
      "/usr/bin/shellcheck", ["--severity=warning"] + files, environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
    #expect(result.status == 0, "shellcheck: \(result.standardOutput)\(result.standardError)")
  }

  /// Under `set -o pipefail` no pipeline's reader stops before its writer has finished (`head`,
  /// `grep -q`, `awk '… exit'`, `sed q`): the writer's SIGPIPE would make the pipeline fail
  /// whenever the machine is slow enough, as `make deb` did at the end of a green test run.
  @Test func noReaderStopsEarlyUnderPipefail() throws {
    var linted = 0
    var found: [String] = []
    for path in try shellScripts(under: ["scripts", "bench", ".ci"]) {
      let text = try String(contentsOfFile: path, encoding: .utf8)
      guard text.contains("pipefail") else { continue }
      linted += 1
      let name = path.dropFirst(PackagePaths.root.path.count + 1)
      found += EarlyReader.find(in: text).map { "\(name): \($0)" }
    }
    #expect(linted >= 25)
    let advice = "read the whole output (capture it first), or drop pipefail:"
    #expect(found.isEmpty, "\(advice)\n\(found.joined(separator: "\n"))")
  }

  /// make runs recipes with /bin/sh and no pipefail: a pipeline's status there is its last
  /// command's, so a reader that stops early is harmless. Were pipefail set, the recipes would
  /// need the same lint as the scripts.
  @Test func makeRecipesRunWithoutPipefail() throws {
    let makefile = try String(contentsOf: PackagePaths.root.appendingPathComponent("Makefile"), encoding: .utf8)
    #expect(!makefile.contains("pipefail"))
    #expect(!makefile.contains(".SHELLFLAGS"))
  }

  /// scripts/deb's library lookup, scripts/lib/library-packages, given an ldconfig that is still
  /// writing long after the line asked for: the lookup reads the whole cache, so the writer
  /// never meets a closed pipe.
  @Test func libraryLookupReadsTheWholeCache() throws {
    let ldconfig = ["/sbin/ldconfig", "/usr/sbin/ldconfig"].first { FileManager.default.isExecutableFile(atPath: $0) }
    let folder = try #require(ldconfig.map { _ in try temporaryFolder() })
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let slowWriter = """
      #!/bin/sh
      \(ldconfig!) -p
      i=0
      while [ $i -lt 20000 ]; do
        echo "	libpadding$i.so.1 (libc6,x86-64) => /nonexistent/libpadding$i.so.1"
        i=$((i + 1))
      done
      """
    try writeExecutable(slowWriter, to: folder + "/ldconfig")
    let environment = ["PATH": folder + ":/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"]
    let lookup = PackagePaths.script("lib/library-packages")

    let found = try runProcess(lookup, ["libc.so.6", "libz.so.1"], environment: environment, timeout: 60)
    #expect(found.status == 0, "\(found)")
    #expect(found.standardOutput == "libc6\nzlib1g\n", "\(found)")

    let missing = try runProcess(lookup, ["libnot-here.so.7"], environment: environment, timeout: 60)
    #expect(missing.status == 1, "\(missing)")
    #expect(missing.standardOutput.isEmpty)
    #expect(missing.standardError.contains("libnot-here.so.7 is not installed here; install it"), "\(missing)")
  }

  private func temporaryFolder() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/accounts-lint.XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    return String(cString: made)
  }
}
