import Foundation
import TestSupport
import Testing

/// The sandbox's own checks: a failed `ok` must stop the test that made it.
@Suite(.blocking) struct SandboxTests {
  /// A command that exits non-zero under `ok` is recorded as a failure and throws, so nothing
  /// after it reads output that is not there (an index into it would crash the whole run).
  @Test func aFailedOkRecordsTheFailureAndThrows() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    var thrown: Sandbox.CheckFailed?
    withKnownIssue("the command fails on purpose: `ok` records that") {
      do {
        try sandbox.ok(["no-such-command"])
      } catch let error as Sandbox.CheckFailed {
        thrown = error
      }
    }
    #expect(thrown?.command == "accounts no-such-command")
    #expect(thrown?.status == 2)
  }
}

/// The leak search itself: it finds a value however a file quotes it.
@Suite(.blocking) struct LeakSearchTests {
  @Test func aQuotedSecretInAJSONFileIsFound() throws {
    let scratch = try ScratchDirectory()
    let key = BackendCommandTests.privateKey
    try FileManager.default.createDirectory(atPath: scratch.path + "/config/accounts", withIntermediateDirectories: true)
    let leaked = scratch.path + "/config/accounts/config.json"
    try #"{"backends": {"corp": {"private_key": "\#(key)"}}}"#.write(toFile: leaked, atomically: false, encoding: .utf8)
    try "nothing here\n".write(toFile: scratch.path + "/other", atomically: false, encoding: .utf8)
    #expect(filesContaining(key, under: scratch.path) == [leaked])
  }
}
