internal import CLibSecret
import Glibc

/// Gives a blocking libsecret or GDBus call a deadline.
///
/// The sync calls block the calling thread in a private main loop, so the deadline has to come
/// from another thread: a watchdog thread waits on a condition variable until the call is done
/// or the time is up, and in the latter case cancels the call's `GCancellable` (which is
/// thread-safe). The call then returns `G_IO_ERROR_CANCELLED`. A gnome-keyring daemon stopped
/// with SIGSTOP would otherwise block a call for about 50 s (SPEC §8).
final class Deadline {
  let seconds: Double
  /// Owned: unreferenced in `deinit`.
  let cancellable: UnsafeMutablePointer<GCancellable>
  private let state: UnsafeMutablePointer<WatchdogState>
  private var thread = pthread_t()

  /// Starts the watchdog; the clock runs from here.
  init(seconds: Double) {
    self.seconds = seconds
    cancellable = g_cancellable_new()
    state = .allocate(capacity: 1)
    state.initialize(to: WatchdogState(cancellable: cancellable, seconds: seconds))
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(&state.pointee.condition, &attributes)
    pthread_condattr_destroy(&attributes)
    pthread_mutex_init(&state.pointee.mutex, nil)
    if pthread_create(&thread, nil, watch, state) != 0 {
      // No thread, no deadline: the call still runs, bounded only by D-Bus's own timeouts.
      state.pointee.threadStarted = false
    }
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
  let cancellable: UnsafeMutablePointer<GCancellable>
  let end: timespec

  init(cancellable: UnsafeMutablePointer<GCancellable>, seconds: Double) {
    self.cancellable = cancellable
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let whole = Int(seconds)
    var nanoseconds = now.tv_nsec + Int((seconds - Double(whole)) * 1e9)
    var secondsPart = now.tv_sec + whole
    if nanoseconds >= 1_000_000_000 {
      nanoseconds -= 1_000_000_000
      secondsPart += 1
    }
    end = timespec(tv_sec: secondsPart, tv_nsec: nanoseconds)
  }
}

/// The watchdog thread's body: wait for `done` or the end, whichever comes first.
private func watch(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  let state = raw!.assumingMemoryBound(to: WatchdogState.self)
  pthread_mutex_lock(&state.pointee.mutex)
  var end = state.pointee.end
  while !state.pointee.done {
    if pthread_cond_timedwait(&state.pointee.condition, &state.pointee.mutex, &end) == ETIMEDOUT {
      if !state.pointee.done {
        state.pointee.expired = true
        g_cancellable_cancel(state.pointee.cancellable)
      }
      break
    }
  }
  pthread_mutex_unlock(&state.pointee.mutex)
  return nil
}
