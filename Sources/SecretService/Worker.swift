import AccountsCore
internal import CLibSecret
import Glibc

/// Runs every call of this library on one thread of its own, so that a call libsecret never
/// completes can be left behind: the entry point answers with the stuck error itself (no call
/// back into the command line), and every later call fails at once with it (the stuck thread
/// may hold libsecret's state). One call at a time, in the order they come.
///
/// The work must own what it uses (Swift values copied from the caller's C arguments): an
/// abandoned call may run on after its entry point returned.
enum Worker {
  nonisolated(unsafe) private static let work = monotonicCondition()
  nonisolated(unsafe) private static let answer = monotonicCondition()
  /// All guarded by `Watchdog.lock`.
  nonisolated(unsafe) private static var job: (() -> Void)?
  nonisolated(unsafe) private static var busy = false
  nonisolated(unsafe) private static var finished = false
  nonisolated(unsafe) private static var stuck: String?
  nonisolated(unsafe) private static var started = false
  /// The error (wire text) every call fails with once one was abandoned.
  nonisolated(unsafe) private static var abandoned: String?

  /// Runs `body` on the worker thread and waits until it returns: nil then, or the stuck
  /// error's wire text when the watchdog reported it stuck (or an earlier call was).
  static func run(_ body: @escaping () -> Void) -> String? {
    let lock = Watchdog.lock
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    while busy && abandoned == nil { pthread_cond_wait(answer, lock) }
    if let abandoned { return abandoned }
    if !started {
      var thread = pthread_t()
      guard pthread_create(&thread, nil, { _ in Worker.serve() }, nil) == 0 else {
        // No thread: the call runs here, bounded by its deadlines alone.
        pthread_mutex_unlock(lock)
        body()
        pthread_mutex_lock(lock)
        return nil
      }
      pthread_detach(thread)
      started = true
    }
    busy = true
    finished = false
    stuck = nil
    job = body
    pthread_cond_signal(work)
    while !finished && stuck == nil { pthread_cond_wait(answer, lock) }
    busy = false
    if !finished {
      abandoned = stuck
      pthread_cond_broadcast(answer)
      return stuck
    }
    pthread_cond_broadcast(answer)
    return nil
  }

  /// Called by the watchdog (under `Watchdog.lock`): the running call is stuck.
  static func callIsStuck(_ failure: String) {
    guard busy, stuck == nil else { return }
    stuck = failure
    pthread_cond_broadcast(answer)
  }

  /// The worker thread's body: runs each job as it comes; never returns.
  private static func serve() -> UnsafeMutableRawPointer? {
    let lock = Watchdog.lock
    pthread_mutex_lock(lock)
    while true {
      while job == nil { pthread_cond_wait(work, lock) }
      let next = job!
      job = nil
      pthread_mutex_unlock(lock)
      next()
      pthread_mutex_lock(lock)
      finished = true
      pthread_cond_broadcast(answer)
    }
  }
}
