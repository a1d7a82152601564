import Foundation
import TestSupport
import Testing

/// `accounts adapters` and `accounts doctor` load each adapter file in a child process of its
/// own, in a session of its own: an adapter can speak only for itself on the pipe its parent
/// reads, cannot signal the command's process group, cannot leave processes behind, and a
/// crash it causes later is never blamed on another file.
@Suite(.blocking) struct ProbeIsolationTests {
  static let protocolReason = "its probe wrote something else on accounts' pipe"

  /// The example adapter and `hostile` in `mode` as `name`, in the sandbox's adapter directory.
  func adapters(_ sandbox: Sandbox, _ adapters: [(mode: String, name: String)], defines: [String] = []) throws -> (example: String, paths: [String: String]) {
    let directory = try sandbox.userAdapterDirectory()
    let example = try CAdapterCompiler.build("example.c", name: "example", into: directory)
    var paths: [String: String] = [:]
    for (mode, name) in adapters {
      paths[name] = try CAdapterCompiler.build(
        "hostile.c", name: name, defines: ["MODE=\(mode)", "NAME=\"\(name)\""] + defines, into: directory)
    }
    return (example, paths)
  }

  @Test func junkOnThePipeRefusesOnlyTheAdapterThatWroteIt() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let (_, paths) = try adapters(sandbox, [("MODE_JUNK_ON_PIPE", "junk")])
    for command in [["adapters"], ["doctor"]] {
      let result = try sandbox.run(command, timeout: 60)
      #expect(!result.standardError.contains("cannot load the adapter host"), "\(result)")
      #expect(squeezed(result.standardOutput).contains(command == ["adapters"]
        ? "junk \(paths["junk"]!)\n refused: \(Self.protocolReason)\n"
        : "FAIL adapter \(paths["junk"]!) refused: \(Self.protocolReason)\n"), "\(result)")
      #expect(result.standardOutput.contains(command == ["adapters"] ? "example 1.0.0" : "example, hmac, plain, signed loaded"), "\(result)")
    }
    #expect(try sandbox.run(["adapters"]).status == 0)
  }

  @Test func forgedAnswersForOtherFilesAreNotBelieved() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let directory = try sandbox.userAdapterDirectory()
    let (example, paths) = try adapters(
      sandbox, [("MODE_FORGE_ON_PIPE", "forge")], defines: ["FORGED_PATH=\"\(directory)/example.so\""])
    let result = try sandbox.run(["adapters"], timeout: 60)
    #expect(result.status == 0, "\(result)")
    #expect(result.standardOutput.contains("example 1.0.0  ABI 1.1  \(example)\n"), "\(result)")
    #expect(result.standardOutput.contains("forge  \(paths["forge"]!)\n  refused: \(Self.protocolReason)\n"), "\(result)")
    #expect(!result.standardOutput.contains("FAKE") && !result.standardOutput.contains("curl"), "\(result)")
    #expect(!result.standardOutput.contains("\u{1b}"), "no escape reaches the terminal")
    #expect(result.standardError == "1 adapter refused; the others work\n", "\(result)")
  }

  @Test func aFloodOnThePipeIsRefusedQuickly() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let (_, paths) = try adapters(sandbox, [("MODE_FLOOD_PIPE", "flood")])
    let result = try sandbox.run(["adapters"], timeout: 60)
    #expect(result.status == 0, "\(result)")
    #expect(result.standardOutput.contains("flood  \(paths["flood"]!)\n  refused: \(Self.protocolReason)\n"), "\(result)")
    #expect(result.seconds < 10, "\(result)")
  }

  /// A thread that aborts a second after its adapter loaded used to take down the child while
  /// it loaded the next file, which was then reported as the one that crashed.
  @Test func aLateCrashIsNotBlamedOnTheNextFile() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let (_, paths) = try adapters(sandbox, [("MODE_LATE_ABORT", "a-late"), ("MODE_SLOW_LOAD", "b-slow")])
    let result = try sandbox.run(["adapters", "--json"], timeout: 60)
    let entries = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
    let slow = try #require(entries.first { $0["path"] as? String == paths["b-slow"] })
    #expect(slow["refused"] is NSNull && slow["version"] as? String == "0.0.1", "\(slow)")
  }

  /// `kill(0, SIGTERM)` in an adapter reaches its own probe's group only. The command runs in
  /// a session of its own here, so that before the fix the signal could not reach the tests.
  @Test func anAdapterSignallingItsProcessGroupDoesNotEndTheCommand() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let (_, paths) = try adapters(sandbox, [("MODE_KILL_GROUP", "killer")])
    for command in ["adapters", "doctor"] {
      let result = try runProcess(
        "/usr/bin/setsid", ["--wait", PackagePaths.accounts, command], environment: sandbox.environment, timeout: 60)
      #expect(result.status == (command == "adapters" ? 0 : 9), "\(result)")
      #expect(result.standardOutput.contains(paths["killer"]!) && result.standardOutput.contains("(SIGTERM)"), "\(result)")
      #expect(result.standardOutput.contains("example"), "\(result)")
    }
  }

  /// What an adapter forks while it loads ends with its probe.
  @Test func processesAnAdapterForksDoNotOutliveTheCommand() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let scratch = try ScratchDirectory()
    let sentinel = scratch.path + "/forked.pid"
    try adapters(sandbox, [("MODE_FORK_ON_LOAD", "forker")], defines: ["SENTINEL=\"\(sentinel)\""])
    let result = try runProcess(
      "/usr/bin/setsid", ["--wait", PackagePaths.accounts, "adapters"], environment: sandbox.environment, timeout: 60)
    #expect(result.status == 0, "\(result)")
    #expect(result.seconds < 15, "nothing waited for the forked process's 30 s: \(result)")
    let pid = try #require(Int32(try String(contentsOfFile: sentinel, encoding: .utf8)), "the adapter forked")
    defer { kill(pid, SIGKILL) }  // the process this test caused, by its pid, should it be there
    usleep(100_000)
    #expect(kill(pid, 0) != 0 || isZombie(pid), "the forked process \(pid) is gone")
  }

  func isZombie(_ pid: Int32) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat"), let data = try? handle.readToEnd() else { return true }
    return String(decoding: data, as: UTF8.self).contains(") Z ")
  }
}
