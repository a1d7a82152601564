import AccountsCore
import Glibc

/// Runs the Secret Service library's calls on a thread of their own, so that a call that never
/// returns can be left behind instead of holding the command for good.
///
/// libsecret 0.20.5 never completes a call whose provider vanished while its prompt was open,
/// and the cancellable no longer reaches it (issue: a KeePassXC that exits with its access
/// dialog open). The library's own deadline cancels every call; when a cancelled call is still
/// running a grace period later, the library reports it stuck (`report`, a C function it calls
/// from its watchdog thread). The waiting thread then abandons the call: it fails with exit
/// status 7, every later call fails at once (the stuck thread may hold libsecret's state), and
/// the process ends without running exit handlers (`AccountsCommandLine.exit`). A backstop
/// bounds the wait even if the library's watchdog should fail.
///
/// Nothing the abandoned call uses belongs to the waiting thread: the work is a closure that owns
/// what it captures, and its answer goes into a box of its own. The ledger's rules cover the
/// rest: a keyring call that timed out may still land, so its account stays unsettled.
enum GuardedCall {
  nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    return mutex
  }()
  nonisolated(unsafe) private static let signal: UnsafeMutablePointer<pthread_cond_t> = {
    let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(condition, &attributes)
    pthread_condattr_destroy(&attributes)
    return condition
  }()
  /// What the library reported stuck during the current call (its error's wire text).
  nonisolated(unsafe) private static var stuck: String?
  /// The error every call fails with once one was abandoned.
  nonisolated(unsafe) private(set) static var abandoned: SecretStoreError?

  /// The function the library calls when a call is stuck.
  static let report: @convention(c) (UnsafePointer<CChar>) -> Void = { text in
    pthread_mutex_lock(GuardedCall.lock)
    GuardedCall.stuck = String(cString: text)
    pthread_cond_broadcast(GuardedCall.signal)
    pthread_mutex_unlock(GuardedCall.lock)
  }

  /// Runs `work` on a thread of its own and waits until it returns, the library reports it
  /// stuck, or `backstop` seconds pass.
  static func run<Answer>(backstop: Double, _ work: @escaping () -> Answer) throws(SecretStoreError) -> Answer {
    if let abandoned { throw abandoned }
    let box = Box<Answer>()
    let job = Job { box.value = work() }
    pthread_mutex_lock(lock)
    stuck = nil
    pthread_mutex_unlock(lock)
    guard job.start() else {
      return work()  // no thread: the call runs here, bounded by the library's deadlines alone
    }
    var end = monotonicTime(after: backstop)
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    while !job.finished, stuck == nil {
      if pthread_cond_timedwait(signal, lock, &end) == ETIMEDOUT { break }
    }
    if job.finished, let value = box.value { return value }
    let failure = stuck.map { SecretStoreError(wireText: $0) }
      ?? .timedOut(operation: "use the Secret Service", seconds: backstop)
    abandoned = failure
    throw failure
  }

  /// What a call answered, written by its thread before it says it finished.
  private final class Box<Value>: @unchecked Sendable {
    var value: Value?
  }

  /// The work of one call, owned by the detached thread that runs it (and so kept alive as long
  /// as that thread runs, abandoned or not).
  private final class Job: @unchecked Sendable {
    let work: () -> Void
    /// Set under `lock` once `work` returned.
    var finished = false

    init(_ work: @escaping () -> Void) { self.work = work }

    func start() -> Bool {
      var thread = pthread_t()
      let context = Unmanaged.passRetained(self).toOpaque()
      guard pthread_create(&thread, nil, { context in
        let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
        job.work()
        pthread_mutex_lock(GuardedCall.lock)
        job.finished = true
        pthread_cond_broadcast(GuardedCall.signal)
        pthread_mutex_unlock(GuardedCall.lock)
        return nil
      }, context) == 0 else {
        Unmanaged<Job>.fromOpaque(context).release()
        return false
      }
      pthread_detach(thread)
      return true
    }
  }
}
