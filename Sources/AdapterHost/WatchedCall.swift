import Dispatch
import Glibc

/// Runs a call into an adapter on its own thread and waits for it at most until a deadline.
///
/// An adapter is foreign code: its `step` may never return. C offers no way to stop a thread
/// safely, so a call that misses its deadline is abandoned, still running, with every piece of
/// memory it can see left alive; the command then fails and the process exits, which ends it.
/// The thread is a plain detached pthread, not a Dispatch worker: an abandoned call must not
/// hold one of the few threads of Dispatch's pool.
struct WatchedCall {
  let deadline: DispatchTime

  /// The call's result, or nil when it did not return before the deadline (or no thread could
  /// be started).
  func run<Result>(_ body: @escaping () -> Result) -> Result? {
    let outcome = Outcome<Result>()
    let job = Job { outcome.value = body() }
    let context = Unmanaged.passRetained(job).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { context in
      let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
      job.body()
      job.finished.signal()
      return nil
    }, context)
    guard started == 0 else {
      Unmanaged<Job>.fromOpaque(context).release()
      return nil
    }
    pthread_detach(thread)
    guard job.finished.wait(timeout: deadline) == .success else { return nil }
    return outcome.value
  }

  /// The work for the thread; the semaphore orders the accesses to what it writes.
  private final class Job: @unchecked Sendable {
    let body: () -> Void
    let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping () -> Void) { self.body = body }
  }

  private final class Outcome<Value>: @unchecked Sendable {
    var value: Value?
  }
}

extension DispatchTime {
  /// Seconds from now until this time; negative when it has passed.
  var secondsLeft: Double {
    let now = DispatchTime.now().uptimeNanoseconds
    return (Double(uptimeNanoseconds) - Double(now)) / 1e9
  }
}
