import Glibc

/// Puts the terminal back as it was when a signal ends or stops the process while a password
/// prompt (echo off) or the picker (raw mode) holds it in another mode: the only state a signal
/// handler may touch, kept in plain globals, and only async-signal-safe calls in the handlers.
///
/// - SIGINT, SIGTERM, SIGHUP, SIGQUIT: restore (and erase the picker), then die of the signal.
/// - SIGTSTP (Ctrl-Z, `kill -TSTP`): restore, stop; when continued, set the changed mode again
///   and raise `interrupted`, so the picker redraws.
/// - SIGWINCH: only `interrupted`, so the picker redraws at the new size.
enum TerminalGuard {
  nonisolated(unsafe) static var descriptor: Int32 = -1
  nonisolated(unsafe) static var saved = termios()
  nonisolated(unsafe) static var changed = termios()
  /// True while the picker is drawn below the cursor's line, to be erased on restoring.
  nonisolated(unsafe) static var erases = false
  /// Set by a handler when the screen may need drawing again; the picker clears it.
  nonisolated(unsafe) static var interrupted: sig_atomic_t = 0

  private static let ending = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

  static func arm(_ tty: Int32, saved: termios, changed: termios, erases: Bool = false) {
    Self.saved = saved
    Self.changed = changed
    Self.erases = erases
    interrupted = 0
    descriptor = tty
    for signal in ending {
      Glibc.signal(signal) { number in
        TerminalGuard.restore()
        Glibc.signal(number, SIG_DFL)
        raise(number)
      }
    }
    Glibc.signal(SIGTSTP, stopHandler)
    Glibc.signal(SIGWINCH) { _ in TerminalGuard.interrupted = 1 }
  }

  static func disarm() {
    descriptor = -1
    erases = false
    for signal in ending + [SIGTSTP, SIGWINCH] { Glibc.signal(signal, SIG_DFL) }
  }

  private static let stopHandler: @convention(c) (Int32) -> Void = { _ in
    TerminalGuard.restore()
    Glibc.signal(SIGTSTP, SIG_DFL)
    // SIGTSTP is blocked while its handler runs: unblocked, the raise stops the process here
    // and now, not after the handler is back in place (which would loop).
    var stop = sigset_t()
    sigemptyset(&stop)
    sigaddset(&stop, SIGTSTP)
    sigprocmask(SIG_UNBLOCK, &stop, nil)
    raise(SIGTSTP)
    // Continued (`fg`): back in the mode the prompt or picker needs.
    Glibc.signal(SIGTSTP, TerminalGuard.stopHandler)
    if TerminalGuard.descriptor >= 0 {
      tcsetattr(TerminalGuard.descriptor, TCSAFLUSH, &TerminalGuard.changed)
    }
    TerminalGuard.interrupted = 1
  }

  /// Async-signal-safe: write(2) of a static string and tcsetattr.
  private static func restore() {
    guard descriptor >= 0 else { return }
    if erases {
      let erase: StaticString = "\r\u{1B}[J"
      _ = write(descriptor, erase.utf8Start, erase.utf8CodeUnitCount)
    }
    tcsetattr(descriptor, TCSAFLUSH, &saved)
  }
}
