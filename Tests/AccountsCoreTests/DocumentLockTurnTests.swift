@testable import AccountsCore
import AccountsSystem
import Foundation
import Glibc
import Synchronization
import TestSupport
import TestDoubles
import Testing

/// A writer that takes the lock again as soon as it lets go (`import`, one account at a time)
/// must not starve a command waiting for it.
@Suite(.blocking) struct DocumentLockTurnTests {
  @Test func aWaitingWriterGetsItsTurnBetweenTheTurnsOfOneThatTakesTheLockAgainAtOnce() throws {
    let tree = try TemporaryTree()
    let file = DocumentFile(path: tree.root + "/document.json")
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
    // Before the turnstile this waited the whole 15 s and failed as "held for 15 s".
    let seen = try file.withLock { transaction in
      try transaction.write(Array("{}".utf8))
      return turns.load(ordering: .relaxed)
    }
    #expect(seen < 10, "the waiter got in after \(seen) turns of the busy writer")
  }

  /// A waiter that stops (Ctrl-Z, SIGSTOP) while it says it waits costs the others a moment,
  /// never the lock: the signal is no gate.
  @Test func aStoppedWaiterDoesNotKeepTheOthersOut() throws {
    let tree = try TemporaryTree()
    let file = DocumentFile(path: tree.root + "/document.json")
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
