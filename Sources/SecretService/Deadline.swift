import AccountsContract
internal import CLibSecret
import AccountsSystem
import Glibc
import Synchronization

/// Gives a blocking libsecret or GDBus call a deadline.
///
/// The sync calls block the calling thread in a private main loop, so the deadline has to come
/// from another thread: the process's one `Watchdog` thread, which cancels the call's
/// `GCancellable` (thread-safe) at the end. The call then returns `G_IO_ERROR_CANCELLED`. A
/// gnome-keyring daemon stopped with SIGSTOP would otherwise block a call for about 50 s (SPEC §8).
///
/// Cancelling is not always enough: when a provider vanishes while its prompt is open,
/// libsecret 0.20.5 never completes the call and the cancellable no longer reaches it. So when
/// the call is still running `grace` seconds after the cancel, the watchdog reports it stuck to
/// `Worker`, which runs every call of this library: the entry point then answers with the stuck
/// error itself, the call is abandoned, and every later call fails at once.
///
/// A call still running `watchAfter` seconds in starts `ProviderWatch`: when the provider leaves
/// the bus, the call is cancelled at once (and reported stuck a grace later if it does not
/// return), not at its deadline.
final class Deadline {
  /// How long a cancelled call may take to return before it is reported stuck.
  static let grace: Double = 1
  /// How long a call runs before the provider is watched for leaving the bus.
  static let watchAfter: Double = 0.3
  let seconds: Double
  /// Owned: unreferenced in `deinit`.
  let cancellable: UnsafeMutablePointer<GCancellable>
  private let state: UnsafeMutablePointer<WatchdogState>

  /// Starts the clock. `failure` is what the call is reported as when it is stuck after its
  /// deadline; `operation` names it when the provider left.
  init(seconds: Double, failure: SecretStoreError, operation: String = "") {
    self.seconds = seconds
    cancellable = g_cancellable_new()
    state = .allocate(capacity: 1)
    state.initialize(
      to: WatchdogState(
        cancellable: cancellable, seconds: seconds, failure: failure.wireText,
        left: SecretStoreError.stuck(operation: operation, seconds: 0).wireText))
    Watchdog.add(state)
  }

  /// True once the cancellable is cancelled (by the watchdog, or by anyone).
  var isCancelled: Bool { g_cancellable_is_cancelled(cancellable) != 0 }

  /// True when the watchdog cancelled the call at its deadline.
  var expired: Bool { Watchdog.locked { state.pointee.expired } }

  /// True when the provider left the bus during the call (or before it).
  var providerLeft: Bool { Watchdog.locked { state.pointee.gone } }

  deinit {
    Watchdog.remove(state)
    state.deinitialize(count: 1)
    state.deallocate()
    g_object_unref(cancellable)
  }
}

/// One running call as the watchdog sees it; guarded by `Watchdog`'s lock. Times are seconds
/// on the monotonic clock.
struct WatchdogState {
  /// Cancelled at its deadline.
  var expired = false
  /// The provider left the bus: cancelled, whatever its deadline.
  var gone = false
  /// `ProviderWatch` was started for it.
  var watching = false
  /// Reported stuck (once).
  var stuck = false
  let cancellable: UnsafeMutablePointer<GCancellable>
  let end: Double
  let watch: Double
  /// When a cancelled call that has not returned is stuck.
  var abandon: Double
  /// What the call is reported as when stuck after its deadline, and after the provider left.
  let failure: String
  let left: String

  init(cancellable: UnsafeMutablePointer<GCancellable>, seconds: Double, failure: String, left: String) {
    self.cancellable = cancellable
    self.failure = failure
    self.left = left
    let now = monotonicSeconds()
    end = now + seconds
    watch = now + min(Deadline.watchAfter, seconds)
    abandon = end + Deadline.grace
  }
}

/// The one watchdog thread of the process (started with the first deadline): it sleeps until
/// the next event of any running call (watch the provider, deadline, stuck) and acts on it.
enum Watchdog {
  /// @unchecked: each `WatchdogState` belongs to its `Deadline`, and is read and written under
  /// this Mutex only.
  private struct Shared: @unchecked Sendable {
    var running: [UnsafeMutablePointer<WatchdogState>] = []
    var started = false
    /// The provider left the bus: every call from now on is cancelled at once.
    var providerGone = false
  }

  private static let shared = Mutex(Shared())
  /// Posted when a call comes or the provider leaves: the next event may be sooner.
  private static let signal = Semaphore(value: 0)

  static func locked<Value: Sendable>(_ body: () -> Value) -> Value {
    shared.withLock { _ in body() }
  }

  static func add(_ state: UnsafeMutablePointer<WatchdogState>) {
    let entry = Entry(state: state)
    shared.withLock { shared in
      shared.running.append(entry.state)
      if shared.providerGone { cancelAsGone(entry.state) }
      if !shared.started {
        var thread = pthread_t()
        shared.started = pthread_create(&thread, nil, { _ in Watchdog.watch() }, nil) == 0
        if shared.started { pthread_detach(thread) }
      }
    }
    signal.post()
  }

  static func remove(_ state: UnsafeMutablePointer<WatchdogState>) {
    let entry = Entry(state: state)
    shared.withLock { $0.running.removeAll { $0 == entry.state } }
  }

  /// Called by `ProviderWatch` when the provider left the bus.
  static func providerLeft() {
    shared.withLock { shared in
      shared.providerGone = true
      for state in shared.running { cancelAsGone(state) }
    }
    signal.post()
  }

  /// Under the lock: cancel the call now, and give it the grace to return before it is stuck.
  private static func cancelAsGone(_ state: UnsafeMutablePointer<WatchdogState>) {
    guard !state.pointee.gone, !state.pointee.stuck else { return }
    state.pointee.gone = true
    state.pointee.abandon = monotonicSeconds() + Deadline.grace
    g_cancellable_cancel(state.pointee.cancellable)
  }

  /// The thread's body: never returns (the process ends with it).
  private static func watch() -> UnsafeMutableRawPointer? {
    while true {
      let (next, startWatch) = shared.withLock { shared -> (Double, Bool) in
        let now = monotonicSeconds()
        var next = Double.infinity
        var startWatch = false
        for state in shared.running {
          if !state.pointee.watching {
            if now >= state.pointee.watch {
              state.pointee.watching = true
              startWatch = true
            } else {
              next = min(next, state.pointee.watch)
            }
          }
          if !state.pointee.expired && !state.pointee.gone {
            if now >= state.pointee.end {
              state.pointee.expired = true
              g_cancellable_cancel(state.pointee.cancellable)
            } else {
              next = min(next, state.pointee.end)
            }
          }
          if (state.pointee.expired || state.pointee.gone) && !state.pointee.stuck {
            if now >= state.pointee.abandon {
              state.pointee.stuck = true
              Worker.callIsStuck(state.pointee.gone ? state.pointee.left : state.pointee.failure)
            } else {
              next = min(next, state.pointee.abandon)
            }
          }
        }
        return (next, startWatch)
      }
      if startWatch {
        // Not under the lock: the watch takes its own, and then this one.
        ProviderWatch.start()
        continue
      }
      if next == .infinity {
        signal.wait()
      } else {
        _ = signal.wait(until: next)
      }
    }
  }

  /// A running call's state, handed into the Mutex.
  private struct Entry: @unchecked Sendable {
    let state: UnsafeMutablePointer<WatchdogState>
  }
}
