import AccountsCore
internal import CLibSecret
import Glibc

/// Gives a blocking libsecret or GDBus call a deadline.
///
/// The sync calls block the calling thread in a private main loop, so the deadline has to come
/// from another thread: a watchdog thread waits on a condition variable until the call is done
/// or the time is up, and in the latter case cancels the call's `GCancellable` (which is
/// thread-safe). The call then returns `G_IO_ERROR_CANCELLED`. A gnome-keyring daemon stopped
/// with SIGSTOP would otherwise block a call for about 50 s (SPEC §8).
///
/// Cancelling is not always enough: when a provider vanishes while its prompt is open,
/// libsecret 0.20.5 never completes the call and the cancellable no longer reaches it. So when
/// the call is still running `grace` seconds after the cancel, the watchdog reports it stuck
/// (`StuckCalls`): the command line, which runs every call of this library on a thread of its
/// own, then abandons it and fails with exit status 7.
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
  private var thread = pthread_t()

  /// Starts the watchdog; the clock runs from here. `failure` is what a stuck call is reported
  /// as.
  init(seconds: Double, failure: SecretStoreError, operation: String = "") {
    self.seconds = seconds
    cancellable = g_cancellable_new()
    state = .allocate(capacity: 1)
    state.initialize(to: WatchdogState(cancellable: cancellable, seconds: seconds, failure: failure.wireText))
    state.pointee.left = SecretStoreError.stuck(operation: operation, seconds: 0).wireText
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(&state.pointee.condition, &attributes)
    pthread_condattr_destroy(&attributes)
    pthread_mutex_init(&state.pointee.mutex, nil)
    if ProviderWatch.register(state) { cancelAsProviderLeft(state) }
    if pthread_create(&thread, nil, watch, state) != 0 {
      // No thread, no deadline: the call still runs, bounded only by D-Bus's own timeouts.
      state.pointee.threadStarted = false
    }
  }

  /// True when the provider left the bus during the call (or before it).
  var providerLeft: Bool {
    pthread_mutex_lock(&state.pointee.mutex)
    defer { pthread_mutex_unlock(&state.pointee.mutex) }
    return state.pointee.gone
  }

  /// True once the cancellable is cancelled (by the watchdog, or by anyone).
  var isCancelled: Bool { g_cancellable_is_cancelled(cancellable) != 0 }

  /// True when the watchdog cancelled the call.
  var expired: Bool {
    pthread_mutex_lock(&state.pointee.mutex)
    defer { pthread_mutex_unlock(&state.pointee.mutex) }
    return state.pointee.expired
  }

  deinit {
    ProviderWatch.unregister(state)
    pthread_mutex_lock(&state.pointee.mutex)
    state.pointee.done = true
    pthread_cond_signal(&state.pointee.condition)
    pthread_mutex_unlock(&state.pointee.mutex)
    if state.pointee.threadStarted { pthread_join(thread, nil) }
    pthread_cond_destroy(&state.pointee.condition)
    pthread_mutex_destroy(&state.pointee.mutex)
    state.deinitialize(count: 1)
    state.deallocate()
    g_object_unref(cancellable)
  }
}

/// What the watchdog thread shares with the caller; guarded by `mutex`.
struct WatchdogState {
  var mutex = pthread_mutex_t()
  var condition = pthread_cond_t()
  var done = false
  var expired = false
  var threadStarted = true
  /// The provider left the bus: the call is cancelled, whatever its deadline.
  var gone = false
  /// What a call that the provider left is reported as (a stuck call with no deadline passed).
  var left = ""
  let cancellable: UnsafeMutablePointer<GCancellable>
  let end: timespec
  /// When the provider starts being watched, if the call still runs.
  let watch: timespec
  /// The end plus the grace: when the call is still running then, it is stuck.
  var abandon: timespec
  let failure: String

  init(cancellable: UnsafeMutablePointer<GCancellable>, seconds: Double, failure: String) {
    self.cancellable = cancellable
    self.failure = failure
    end = monotonicTime(after: seconds)
    watch = monotonicTime(after: min(Deadline.watchAfter, seconds))
    abandon = monotonicTime(after: seconds + Deadline.grace)
  }
}

/// The provider left the bus during the call of `state`: cancel it now, and give it the grace to
/// return before it is reported stuck. Called by `ProviderWatch`.
func cancelAsProviderLeft(_ state: UnsafeMutablePointer<WatchdogState>) {
  pthread_mutex_lock(&state.pointee.mutex)
  defer { pthread_mutex_unlock(&state.pointee.mutex) }
  guard !state.pointee.done, !state.pointee.gone else { return }
  state.pointee.gone = true
  state.pointee.abandon = monotonicTime(after: Deadline.grace)
  g_cancellable_cancel(state.pointee.cancellable)
  pthread_cond_signal(&state.pointee.condition)
}


/// Where a stuck call is reported: a function the command line registers when it opens the
/// store (`accounts_secret_open`). Called at most once per call, from the watchdog thread.
enum StuckCalls {
  nonisolated(unsafe) static var report: (@convention(c) (UnsafePointer<CChar>) -> Void)?
}

/// The watchdog thread's body: wait for `done`, the provider leaving, or the end, whichever
/// comes first; start watching the provider once the call has run `Deadline.watchAfter`.
private func watch(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  let state = raw!.assumingMemoryBound(to: WatchdogState.self)
  pthread_mutex_lock(&state.pointee.mutex)
  var watch = state.pointee.watch
  while !state.pointee.done, !state.pointee.gone {
    if pthread_cond_timedwait(&state.pointee.condition, &state.pointee.mutex, &watch) == ETIMEDOUT { break }
  }
  if !state.pointee.done, !state.pointee.gone {
    // Not under this call's lock: the watch takes its own, and then this one.
    pthread_mutex_unlock(&state.pointee.mutex)
    ProviderWatch.start()
    pthread_mutex_lock(&state.pointee.mutex)
  }
  var end = state.pointee.end
  while !state.pointee.done, !state.pointee.gone {
    if pthread_cond_timedwait(&state.pointee.condition, &state.pointee.mutex, &end) == ETIMEDOUT {
      if !state.pointee.done {
        state.pointee.expired = true
        g_cancellable_cancel(state.pointee.cancellable)
      }
      break
    }
  }
  // Cancelled: the call gets the grace to return; if it does not, it is stuck.
  var abandon = state.pointee.abandon
  while !state.pointee.done {
    if pthread_cond_timedwait(&state.pointee.condition, &state.pointee.mutex, &abandon) == ETIMEDOUT {
      if !state.pointee.done, let report = StuckCalls.report {
        (state.pointee.gone ? state.pointee.left : state.pointee.failure).withCString { report($0) }
      }
      break
    }
  }
  pthread_mutex_unlock(&state.pointee.mutex)
  return nil
}
