import Foundation
import TestSupport
import Testing

/// The tests' own child processes (`runProcess`, `SpawnedProcess`): every child is bounded in
/// time whatever it does with its streams, takes what it started with it, and can be signalled
/// while another thread waits for it.
@Suite(.blocking) struct SubprocessTests {
  @Test func aChildThatClosesItsOutputAndRunsOnIsStillBoundedByTheTimeout() throws {
    let started = Date()
    #expect(throws: SubprocessError.self) {
      try runProcess("/bin/sh", ["-c", "exec >&- 2>&-; sleep 20"], environment: [:], timeout: 1)
    }
    #expect(Date().timeIntervalSince(started) < 10)
  }

  @Test func aTimeoutEndsWhatTheChildStartedToo() throws {
    let directory = NSTemporaryDirectory() + "subprocess-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    #expect(throws: SubprocessError.self) {
      try runProcess("/bin/sh", ["-c", "sleep 30 & echo $! > \"$0\"; wait", directory + "/pid"], environment: [:], timeout: 1)
    }
    let pid = try #require(pid_t(String(contentsOfFile: directory + "/pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    // The grandchild was killed with the group; it is gone once its parent (init) reaps it.
    #expect(waitUntil(seconds: 10) { kill(pid, 0) != 0 }, "sleep \(pid) outlived the timeout")
  }

  @Test func stdinLargerThanAPipeReachesAChildThatWritesAsItReads() throws {
    let text = String(repeating: "0123456789abcdef", count: 64 * 1024)  // 1 MiB
    let result = try runProcess("/bin/cat", [], environment: [:], standardInput: text, timeout: 30)
    #expect(result.status == 0)
    #expect(result.standardOutput == text)
  }

  @Test func aSpawnedProcessCanBeSignalledWhileAnotherThreadWaitsForIt() throws {
    let child = try SpawnedProcess("/bin/sleep", ["30"], environment: [:])
    let waiter = Thread { child.waitUntilExit() }
    waiter.start()
    usleep(100_000)  // the other thread is in its wait
    let started = Date()
    child.terminate()
    #expect(child.endedBySignal && child.terminationStatus == SIGTERM)
    #expect(Date().timeIntervalSince(started) < 5)
  }
}
