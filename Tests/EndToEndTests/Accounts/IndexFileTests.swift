import Foundation
import TestSupport
import Testing

/// The index and config.json on disk: a writer killed mid-write leaves the old index whole, a
/// malformed index or one that is no regular file is reported (one line, the fix) and never
/// overwritten, what a hand-edited file holds never reaches the terminal unescaped, and doctor
/// says who owns the files.
@Suite(.blocking) struct IndexFileTests {
  @Test func aWriterKilledMidWriteLeavesTheOldIndex() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    for index in 0..<30 { try sandbox.ok(["add", "user\(index)"]) }
    let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath))

    // The interposer stops the writer (SIGSTOP) once the new index is written to the temporary
    // file and synced, just before it is renamed into place; the test then kills it for good.
    let writer = try SpawnedProcess(
      PackagePaths.accounts, ["add", "victim"],
      environment: sandbox.environment.merging(Interposer.environment(stop: "before:1")) { $1 })
    let stopped = waitUntil(seconds: 20) { processState(writer.processIdentifier) == "T" }
    #expect(stopped, "the writer never reached the stall point")
    let temporary = sandbox.indexPath + ".tmp"
    let written = try Data(contentsOf: URL(fileURLWithPath: temporary))
    #expect(written.count > before.count, "the new version is written but not in place: \(written.count) bytes")
    writer.signal(SIGKILL)
    #expect(writer.endedBySignal)

    #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath)) == before, "the old index survives whole")
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.count == 30)
    // The lock died with the writer; the next writer replaces the stale temporary file.
    let next = try sandbox.run(["add", "survivor"], timeout: 20)
    #expect(next.status == 0, "\(next)")
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.count == 31)
  }

  @Test func malformedIndexIsReportedAndNeverOverwritten() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice"])
    try sandbox.ok(["add", "bob"])  // a second write, so a previous version is kept as .bak
    let broken = "{\n  \"version\": 1,\n  \"accounts\": [\n    { \"user\": \"alice\",, }\n  ]\n}\n"
    try broken.write(toFile: sandbox.indexPath, atomically: false, encoding: .utf8)
    for arguments in [["list"], ["add", "bob"], ["remove", "alice"], ["current"]] {
      let result = try sandbox.run(arguments)
      #expect(result.status == 1, "\(arguments): \(result)")
      #expect(result.standardError.hasPrefix("accounts: \(sandbox.indexPath) is malformed: line 4, column "), "\(result.standardError)")
      #expect(result.standardError.contains("restore the previous version saved at \(sandbox.indexPath).bak"))
      #expect(result.standardError.split(separator: "\n").count == 1, "one line")
    }
    #expect(try String(contentsOfFile: sandbox.indexPath, encoding: .utf8) == broken)
  }

  @Test func aFIFOAtTheIndexPathFailsFastEverywhere() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice"])
    unlink(sandbox.indexPath)
    #expect(mkfifo(sandbox.indexPath, 0o600) == 0)
    for arguments in [["list"], ["current"], ["add", "bob"], ["remove", "alice"]] {
      let result = try sandbox.run(arguments, timeout: 10)
      #expect(result.status == 1, "\(arguments): \(result)")
      #expect(result.standardError == "accounts: refusing to use \(sandbox.indexPath): not a regular file (a FIFO); check who changed it, then run: mv \(sandbox.indexPath) \(sandbox.indexPath).moved\n")
    }
    let completion = try sandbox.run(["__complete", "accounts"], timeout: 10)
    #expect(completion.standardOutput.isEmpty && completion.seconds < 5)
  }

  @Test func escapeSequencesInHandEditedFilesNeverReachTheTerminal() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let config = sandbox.environment["XDG_CONFIG_HOME"]! + "/accounts/config.json"
    let text = try String(contentsOfFile: config, encoding: .utf8)
    try text.replacingOccurrences(of: "\"base_url\"", with: "\"login_path\": \"x\\u001b]0;owned\\u0007\\u009b31m\", \"base_url\"")
      .write(toFile: config, atomically: true, encoding: .utf8)
    for arguments in [["backend", "show", "corp"], ["backend", "list"], ["doctor"]] {
      let result = try sandbox.run(arguments)
      let bytes = Array((result.standardOutput + result.standardError).utf8)
      #expect(!bytes.contains(0x1B) && !bytes.contains(0x07) && !(result.standardOutput + result.standardError).unicodeScalars.contains("\u{9B}"), "\(arguments): \(result)")
    }
    #expect(try sandbox.run(["backend", "show", "corp"]).standardOutput.contains("x\\u{1b}]0;owned\\u{7}\\u{9b}31m"))
    let json = try sandbox.run(["backend", "show", "corp", "--json"]).standardOutput
    #expect(json.contains(#""login_path": "x\u001b]0;owned\u0007\u009b31m""#), "JSON escapes them: \(json)")

    let index = sandbox.indexPath
    try sandbox.ok(["add", "alice"])
    let planted = try String(contentsOfFile: index, encoding: .utf8)
      .replacingOccurrences(of: "\"user\": \"alice\"", with: "\"user\": \"ali\\u001b[2Jce\"")
    try planted.write(toFile: index, atomically: true, encoding: .utf8)
    let list = try sandbox.run(["list"])
    #expect(list.status == 1)
    #expect(list.standardError.contains("accounts[0].user: the user name 'ali\\u{1b}[2Jce' contains the invisible character U+001B"), "\(list)")
    #expect(!Array(list.standardError.utf8).contains(0x1B))
  }

  @Test func doctorShowsWhoOwnsTheFiles() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice"])
    let doctor = try sandbox.ok(["doctor"]).standardOutput
    let me = String(cString: getpwuid(getuid())!.pointee.pw_name)
    #expect(doctor.contains("1 account; owned by \(me) (uid \(getuid())), mode 0600"), "\(doctor)")
  }
}
