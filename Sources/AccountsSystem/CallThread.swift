import CAccountsSystem
import Glibc
import Synchronization

/// A thread for calls that may never return, and the one way accounts waits for one: a call
/// runs there, and its caller waits until it returns, until its deadline, or until someone
/// reports it stuck (`reportStuck`). C offers no way to stop a thread safely, so a call that
/// does not return in time is abandoned, still running, with everything it can see left alive;
/// the thread is never used again, and every later call fails at once with the same reason.
///
/// Calls run one at a time, in the order they come. The Secret Service runs all of its calls
/// on one (libsecret's sync calls, which a vanished provider can leave hanging); the adapter
/// host one per adapter session (an adapter is foreign code: its `step` may loop forever).
/// The work must own what it uses: an abandoned call may run on after `run` returned.
public final class CallThread: Sendable {
  private struct State {
    var job: Job?
    var started = false
    /// The call in progress has returned or was given up on: its caller has been (or is being) woken.
    var answered = true
    var abandoned: String?
  }

  private let state = Mutex(State())
  /// One caller at a time; the thread's next job; the running job's answer.
  private let turn = Semaphore(value: 1)
  private let work = Semaphore(value: 0)
  private let answer = Semaphore(value: 0)

  public init() {}

  /// Why a call was abandoned (the caller's `late` text, or what `reportStuck` said).
  public struct Abandoned: Error {
    public let reason: String
  }

  /// Runs `body` on this thread and waits for it: its value, or `Abandoned` when it did not
  /// return by `deadline` (seconds on the monotonic clock, `monotonicSeconds()`; nil: none) or
  /// was reported stuck, or an earlier call was abandoned. `late` is the reason a deadline
  /// gives. When no thread can be started, `body` runs here.
  public func run<Value>(until deadline: Double? = nil, late: String = "", _ body: @escaping () -> Value)
    -> Result<Value, Abandoned>
  {
    turn.wait()
    defer { turn.post() }
    let box = Box<Value>()
    let job = Job { box.value = body() }
    let started = state.withLock { state -> Result<Bool, Abandoned> in
      if let abandoned = state.abandoned { return .failure(Abandoned(reason: abandoned)) }
      state.job = job
      state.answered = false
      defer { state.started = true }
      return .success(state.started)
    }
    switch started {
    case .failure(let abandoned): return .failure(abandoned)
    case .success(true): break
    case .success(false):
      guard startThread() else {
        // No thread: the call runs here, bounded by its own deadlines alone.
        let job = state.withLock { state in
          state.started = false
          state.answered = true
          defer { state.job = nil }
          return state.job
        }
        job?.run()
        return box.value.map { .success($0) } ?? .failure(Abandoned(reason: late))
      }
    }
    work.post()
    let woken = deadline.map { answer.wait(until: $0) } ?? { answer.wait(); return true }()
    return state.withLock { state -> Result<Value, Abandoned> in
      if !woken {
        if state.answered {
          // Answered as the deadline passed: the post is there to take.
          answer.wait()
        } else {
          state.answered = true
          state.abandoned = late
        }
      }
      if let abandoned = state.abandoned { return .failure(Abandoned(reason: abandoned)) }
      return box.value.map { .success($0) } ?? .failure(Abandoned(reason: late))
    }
  }

  /// Why a call was abandoned, once one was: its thread may still hold locks of the code it
  /// was in (GLib's), so the process should end without running exit handlers.
  public var abandonment: String? { state.withLock { $0.abandoned } }

  /// The call in progress is stuck: its caller is woken with `reason`, and the thread is not
  /// used again. Nothing happens when no call is in progress or it has already been answered.
  public func reportStuck(_ reason: String) {
    state.withLock { state in
      guard !state.answered else { return }
      state.answered = true
      state.abandoned = reason
      answer.post()
    }
  }

  /// Ends the thread once it is idle (the owner makes no more calls); an abandoned call's
  /// thread ends when the call returns, if ever.
  public func finish() {
    let running = state.withLock { state in state.started && state.abandoned == nil }
    if running { work.post() }
  }

  private func startThread() -> Bool {
    let context = Unmanaged.passRetained(self).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { context in
      Unmanaged<CallThread>.fromOpaque(context!).takeRetainedValue().serve()
    }, context)
    guard started == 0 else {
      Unmanaged<CallThread>.fromOpaque(context).release()
      return false
    }
    pthread_detach(thread)
    return true
  }

  /// The thread's body: runs each job as it comes, answers it unless it was given up on. Ends
  /// (releasing this object) once a call was abandoned.
  private func serve() -> UnsafeMutableRawPointer? {
    while true {
      work.wait()
      guard let job = state.withLock({ state in defer { state.job = nil }; return state.job }) else { return nil }
      job.run()
      let done = state.withLock { state -> Bool in
        guard state.abandoned == nil else { return true }
        if !state.answered {
          state.answered = true
          answer.post()
        }
        return false
      }
      if done { return nil }
    }
  }

  /// A call handed to the thread: it owns what it uses, and the thread is its only runner.
  private struct Job: @unchecked Sendable {
    let run: () -> Void
  }

  /// What a call returned; written on the thread before its answer is posted.
  private final class Box<Value>: @unchecked Sendable {
    var value: Value?
  }
}

/// A POSIX semaphore: what a thread waits on when Mutex, which cannot wait for a condition,
/// is not enough.
public final class Semaphore: @unchecked Sendable {
  private let semaphore: UnsafeMutablePointer<sem_t>

  public init(value: UInt32) {
    semaphore = .allocate(capacity: 1)
    sem_init(semaphore, 0, value)
  }

  deinit {
    sem_destroy(semaphore)
    semaphore.deallocate()
  }

  public func post() { sem_post(semaphore) }

  public func wait() {
    _ = try? retryingInterrupts { sem_wait(semaphore) }
  }

  /// Waits until `deadline` (seconds on the monotonic clock) at most; false when it passed.
  public func wait(until deadline: Double) -> Bool {
    let whole = deadline.rounded(.down)
    var until = timespec(tv_sec: Int(whole), tv_nsec: Int((deadline - whole) * 1e9))
    while true {
      if accounts_semaphore_wait_monotonic(semaphore, &until) == 0 { return true }
      if errno != EINTR { return false }
    }
  }
}
