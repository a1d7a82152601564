@testable import AccountsCore
import Foundation
import Synchronization
import Testing

/// A writer that takes the lock again as soon as it lets go (`import`, one account at a time)
/// must not starve a command waiting for it.
@Suite struct DocumentLockTurnTests {
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
}
