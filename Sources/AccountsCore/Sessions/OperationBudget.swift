import AccountsContract
import AccountsSystem
import Synchronization

/// The time a command gives the backend (`--timeout`): one budget for every adapter operation
/// of the command together, so that a `request` that logs in again and sends its call again
/// still ends within it. The clock starts at the first operation, not while a person types a
/// password. `status` gives each account a budget of its own.
final class OperationBudget: Sendable {
  let seconds: Double
  /// Set by the first operation.
  private let deadline = Mutex<UInt64?>(nil)

  init(seconds: Double) { self.seconds = seconds }

  /// The seconds left for the next operation, starting the clock on the first call; nil when
  /// the budget is spent.
  func next() -> Double? {
    let now = Self.now()
    let left = deadline.withLock { deadline -> UInt64 in
      let started = deadline ?? now + UInt64(seconds * 1e9)
      deadline = started
      return started > now ? started - now : 0
    }
    return left < 1_000_000 ? nil : Double(left) / 1e9  // under a millisecond: nothing to do in it
  }

  /// Starts the clock again at the next operation: after a login a person approved elsewhere,
  /// whose wait was theirs, not the backend's (as a typed password's is).
  func restart() { deadline.withLock { $0 = nil } }

  /// Whether the budget ran out (so an operation that just failed was cut short by it).
  var isSpent: Bool { next() == nil }

  /// The verdict of an operation the budget did not let run, or cut short.
  var spentOutcome: AdapterOutcome {
    .backendError(
      message: "gave up after --timeout \(DurationText.seconds(seconds)), the time for all of this command's backend calls together")
  }

  private static func now() -> UInt64 { monotonicNanoseconds() }
}
