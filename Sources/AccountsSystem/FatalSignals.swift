import Glibc

/// Makes a fatal signal end the process, after Swift's crash report.
///
/// Swift's runtime handles SIGSEGV, SIGABRT and the other fatal signals to print its crash
/// report (SWIFT_BACKTRACE), then returns from its handler with the default action restored.
/// A real fault then happens again and ends the process; a signal sent from outside
/// (`kill -SEGV`) does not happen again, and the process went on running after its report, on
/// a state nobody can trust any more (a lease keeper renewing, a command waiting). Here every
/// such signal, once the handler that was there before has run, is raised again with the
/// default action: the process ends with the signal's status, as it would without a handler.
public enum FatalSignals {
  /// The signals Swift's runtime reports on.
  static let reported: [Int32] = [SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP]
  nonisolated(unsafe) private static let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)

  private static let installed: Void = {
    previous.initialize(repeating: sigaction(), count: 65)
    for signal in reported {
      var current = sigaction()
      guard sigaction(signal, nil, &current) == 0, !isIgnored(current) else { continue }
      var action = sigaction()
      action.__sigaction_handler.sa_sigaction = { signal, info, context in FatalSignals.handle(signal, info, context) }
      // SA_ONSTACK: a stack overflow is reported on the alternate stack Swift's runtime set up.
      action.sa_flags = SA_SIGINFO | SA_ONSTACK
      sigemptyset(&action.sa_mask)
      sigaction(signal, &action, previous + Int(signal))
    }
  }()

  /// Installs the handlers, once per process: call it first thing in `main`.
  public static func endProcessAfterReport() { _ = installed }

  private static func isIgnored(_ action: sigaction) -> Bool {
    action.sa_flags & SA_SIGINFO == 0
      && unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
  }

  // Async-signal-safe: a pointer read, the previous handler, signal(2) and raise(3).
  private static func handle(
    _ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?
  ) {
    let before = previous[Int(signal)]
    if before.sa_flags & SA_SIGINFO != 0 {
      before.__sigaction_handler.sa_sigaction?(signal, info, context)
    } else {
      let handler = unsafeBitCast(before.__sigaction_handler.sa_handler, to: Int.self)
      if handler != unsafeBitCast(SIG_DFL, to: Int.self), handler != unsafeBitCast(SIG_IGN, to: Int.self) {
        before.__sigaction_handler.sa_handler?(signal)
      }
    }
    // Blocked while this handler runs: delivered, with the default action, as it returns.
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
  }
}
