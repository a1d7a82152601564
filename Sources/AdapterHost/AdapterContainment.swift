import AccountsContract
import AccountsSystem
import Glibc
import Synchronization

/// A crash or an `exit()` inside adapter code ends the command as a failed adapter: one line
/// naming the adapter and what happened, exit status 9, no backtrace.
///
/// Adapters run in the command's process (a child per call would cost more than the rest of a
/// `request`), so this is done in process. Each call into adapter code (loading it, and every
/// session_new, step and session_free) runs inside `run`, which marks the calling thread (a
/// thread-specific pointer to the message of that call) and gives it an alternate signal stack,
/// so that even a stack overflow can be reported. The handlers installed by `install` look at
/// that mark only: a crash on any other thread, or an exit() from our own code, goes on to what
/// was there before (the Swift runtime's backtrace, the normal exit).
///
/// `_exit(9)` in the middle of a login stores nothing, by construction: the host hands an
/// outcome back only once the adapter's calls have returned, and the command line stores a
/// session (index and keyring) only after it has accepted that outcome, so a process that ends
/// inside adapter code ends before anything of the operation was written. What runs on a
/// marked thread counts as the adapter's, the host services it calls included. An exit() on
/// a thread the adapter started itself counts as the adapter's while one of its calls runs
/// (a process-wide list of the calls in flight): any thread but the main one and those that
/// prepared or ran a call (the host's) is the adapter's. A crash on such a thread is not
/// caught, nor is `_exit()` or a raw exit system call: those end the process as they would any
/// program.
public enum AdapterContainment {
  /// What the handlers write, prepared before the call: "accounts: adapter NAME " + what
  /// happened + SUFFIX (e.g. " during login; nothing was stored\n"), assembled in `scratch`.
  struct Call {
    var prefix: UnsafeMutableBufferPointer<UInt8>
    var suffix: UnsafeMutableBufferPointer<UInt8>
    var scratch: UnsafeMutableBufferPointer<UInt8>
    var stack: UnsafeMutableRawPointer
  }

  /// Bytes of each call's alternate signal stack.
  static let stackSize = max(Int(sysconf(Int32(_SC_SIGSTKSZ))), 64 << 10)

  /// The thread-specific mark, the descriptor the message goes to (the command's own stderr,
  /// not fd 2, which points away from adapters), and the handlers that were there before.
  private static let mark: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
    return key
  }()
  /// Set on every thread that prepared or ran a call: the host's, not one an adapter started.
  private static let hostThread: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
    return key
  }()
  /// The calls running now, on any thread, for an exit() on a thread of the adapter's own.
  private static let inFlight = Mutex<[UInt]>([])  // their addresses
  nonisolated(unsafe) private(set) static var messageDescriptor: Int32 = 2
  nonisolated(unsafe) private static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
  static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT]

  private static let installed: Void = {
    _ = mark
    for signal in crashSignals {
      var action = sigaction()
      action.__sigaction_handler.sa_sigaction = { signal, info, _ in AdapterContainment.crashed(signal, info) }
      action.sa_flags = SA_SIGINFO | SA_ONSTACK
      sigemptyset(&action.sa_mask)
      sigaction(signal, &action, previous + Int(signal))
    }
    on_exit({ status, _ in AdapterContainment.exited(status) }, nil)
  }()

  /// Installs the handlers (once per process); their message goes to `descriptor`.
  public static func install(messageDescriptor descriptor: Int32) {
    messageDescriptor = descriptor
    _ = installed
  }

  /// A call's message parts, for `run`; released with `release` unless the call was abandoned
  /// (its thread may still use them).
  static func prepare(adapter name: String, during operation: String) -> UnsafeMutablePointer<Call> {
    func bytes(_ text: String) -> UnsafeMutableBufferPointer<UInt8> {
      let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.utf8.count)
      _ = buffer.initialize(from: text.utf8)
      return buffer
    }
    let prefix = bytes("accounts: adapter \(Names.printable(name)) ")
    let suffix = bytes(" \(operation)\n")
    pthread_setspecific(hostThread, UnsafeRawPointer(bitPattern: 1))
    let call = UnsafeMutablePointer<Call>.allocate(capacity: 1)
    call.initialize(to: Call(
      prefix: prefix, suffix: suffix,
      scratch: .allocate(capacity: prefix.count + suffix.count + 64), stack: malloc(stackSize)!))
    return call
  }

  static func release(_ call: UnsafeMutablePointer<Call>) {
    call.pointee.prefix.deallocate()
    call.pointee.suffix.deallocate()
    call.pointee.scratch.deallocate()
    free(call.pointee.stack)
    call.deallocate()
  }

  /// Runs `body`, adapter code, on this thread, contained.
  static func run<Result>(_ call: UnsafeMutablePointer<Call>, _ body: () -> Result) -> Result {
    var stack = stack_t(ss_sp: call.pointee.stack, ss_flags: 0, ss_size: stackSize)
    var before = stack_t()
    sigaltstack(&stack, &before)
    pthread_setspecific(hostThread, UnsafeRawPointer(bitPattern: 1))
    pthread_setspecific(mark, call)
    inFlight.withLock { $0.append(UInt(bitPattern: call)) }
    defer {
      inFlight.withLock { calls in
        if let index = calls.firstIndex(of: UInt(bitPattern: call)) { calls.remove(at: index) }
      }
      pthread_setspecific(mark, nil)
      sigaltstack(&before, nil)
    }
    return body()
  }

  // The handlers: async-signal-safe (no allocation, no lock): pointer reads, write(2), _exit.

  private static func crashed(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?) {
    guard let raw = pthread_getspecific(mark) else {
      // Not adapter code: what was there before handles it. A fault happens again on return;
      // a signal that was sent is sent again.
      sigaction(signal, previous + Int(signal), nil)
      if let info, info.pointee.si_code <= 0 { raise(signal) }
      return
    }
    let what: StaticString =
      switch signal {
      case SIGSEGV: "crashed (SIGSEGV)"
      case SIGBUS: "crashed (SIGBUS)"
      case SIGILL: "crashed (SIGILL)"
      case SIGFPE: "crashed (SIGFPE)"
      default: "crashed (SIGABRT)"
      }
    report(raw.assumingMemoryBound(to: Call.self), what, number: nil)
  }

  /// Not a signal handler: exit() runs it on the thread that called exit(), where a lock may
  /// be taken. A call in the list is released only after it left it, so it is valid here.
  private static func exited(_ status: Int32) {
    if let raw = pthread_getspecific(mark) {
      report(raw.assumingMemoryBound(to: Call.self), "called exit(", number: status)
    }
    guard pthread_getspecific(hostThread) == nil, !onMainThread() else { return }
    inFlight.withLock { calls in
      if let call = calls.first.flatMap(UnsafeMutablePointer<Call>.init(bitPattern:)) {
        report(call, "called exit(", number: status)
      }
    }
  }

  /// Whether this is the process's main thread (its thread id is the process id), from
  /// /proc/thread-self ("PID/task/TID"); true when that cannot be read, which changes nothing.
  private static func onMainThread() -> Bool {
    var buffer = [CChar](repeating: 0, count: 64)
    let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
    guard count > 0 else { return true }
    let parts = String(cString: buffer).split(separator: "/")
    return parts.count != 3 || parts[0] == parts[2]
  }

  /// Writes prefix + `what` (+ number and ")") + suffix in one write and ends the process.
  private static func report(_ call: UnsafeMutablePointer<Call>, _ what: StaticString, number: Int32?) -> Never {
    let scratch = call.pointee.scratch
    var length = 0
    func append(_ byte: UInt8) {
      guard length < scratch.count else { return }
      scratch[length] = byte
      length += 1
    }
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
      for byte in bytes { append(byte) }
    }
    append(UnsafeBufferPointer(call.pointee.prefix))
    append(UnsafeBufferPointer(start: what.utf8Start, count: what.utf8CodeUnitCount))
    if let number {
      if number < 0 { append(45) }
      let value = Int64(number).magnitude
      var divisor: UInt64 = 1
      while value / divisor >= 10 { divisor *= 10 }
      repeat {
        append(UInt8(48 + (value / divisor) % 10))
        divisor /= 10
      } while divisor > 0
      append(41)
    }
    append(UnsafeBufferPointer(call.pointee.suffix))
    _ = write(messageDescriptor, scratch.baseAddress, length)
    _exit(ExitStatus.adapterFailed.rawValue)
  }
}
