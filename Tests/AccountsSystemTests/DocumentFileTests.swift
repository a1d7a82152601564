import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import AccountsSystem

/// A document's file: the size it reads, and its writers' lock, which takes turns between the
/// commands waiting for it.
@Suite(.blocking) struct DocumentFileTests {
  /// The message and fix of the file error `body` throws; nil when it throws none.
  func refusal(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as FileError {
      return error.message + "; " + (error.fix ?? "")
    } catch {
      return "\(error)"
    }
  }

  @Test func sizeIsCappedOnBothSidesOfTheLimit() throws {
    let scratch = try ScratchDirectory()
    let file = DocumentFile(path: scratch.path + "/accounts.json")
    #expect(FileManager.default.createFile(atPath: file.path, contents: Data(count: DocumentFile.sizeLimit), attributes: [.posixPermissions: 0o600]))
    #expect(try file.read()?.count == DocumentFile.sizeLimit, "exactly the limit is read")
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file.path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data([0]))
    try handle.close()
    #expect(refusal { _ = try file.read() } == "refusing to read \(file.path): it is larger than 16 MiB, the most accounts reads; move it away: it is not an accounts file")
  }

  /// A writer that takes the lock again as soon as it lets go (`import`, one account at a time)
  /// must not starve a command waiting for it.
  @Test func aWaitingWriterGetsItsTurnBetweenTheTurnsOfOneThatTakesTheLockAgainAtOnce() throws {
    let scratch = try ScratchDirectory()
    let file = DocumentFile(path: scratch.path + "/document.json")
    let turns = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
    let finished = Atomic<Bool>(false)
    // Another descriptor of the lock file: flock and OFD locks work per open file
    // description, so a thread here stands for another process.
    let busy = Thread {
      while !stop.load(ordering: .acquiring) {
        try? file.withLock { _ in
          turns.add(1, ordering: .relaxed)
          usleep(40_000)  // an account's keyring store, under the lock
        }
      }
      finished.store(true, ordering: .releasing)
    }
    busy.start()
    defer {
      stop.store(true, ordering: .releasing)
      while !finished.load(ordering: .acquiring) { usleep(1_000) }
    }
    while turns.load(ordering: .relaxed) < 2 { usleep(1_000) }
    // Without turns the waiter would wait the whole 15 s here and fail as "held for 15 s".
    let seen = try file.withLock { transaction in
      try transaction.write(Array("{}".utf8))
      return turns.load(ordering: .relaxed)
    }
    #expect(seen < 10, "the waiter got in after \(seen) turns of the busy writer")
  }

  /// A waiter that stops (Ctrl-Z, SIGSTOP) while it says it waits costs the others a moment,
  /// never the lock: the signal is no gate.
  @Test func aStoppedWaiterDoesNotKeepTheOthersOut() throws {
    let scratch = try ScratchDirectory()
    let file = DocumentFile(path: scratch.path + "/document.json")
    try file.withLock { try $0.write(Array("{}".utf8)) }
    // What a stopped waiter leaves: the signal, taken through its own open file description.
    let stopped = try FileDescriptor.open(file.lockPath, O_RDWR, mode: 0o600)
    defer { stopped.close() }
    #expect(try stopped.tryLockWholeFile())
    let start = monotonicNanoseconds()
    try file.withLock { try $0.write(Array("[]".utf8)) }  // a gate would wait here for 15 s and fail
    #expect(monotonicNanoseconds() - start < 5_000_000_000)
    #expect(try file.read() == Array("[]".utf8))
  }
}
