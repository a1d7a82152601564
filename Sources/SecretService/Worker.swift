import AccountsSystem

/// The thread every call of this library runs on (`CallThread`), one call at a time, so that a
/// call libsecret never completes can be left behind: the watchdog reports it stuck, the entry
/// point answers with the stuck error itself (no call back into the command line), and every
/// later call fails at once with it (the stuck thread may hold libsecret's state).
///
/// The work must own what it uses (Swift values copied from the caller's C arguments): an
/// abandoned call may run on after its entry point returned.
enum Worker {
  static let thread = CallThread()

  /// Runs `body` on the worker thread and waits until it returns: nil then, or the stuck
  /// error's wire text when the watchdog reported it stuck (or an earlier call was).
  static func run(_ body: @escaping () -> Void) -> String? {
    switch thread.run(body) {
    case .success: nil
    case .failure(let abandoned): abandoned.reason
    }
  }

  /// Called by the watchdog: the running call is stuck.
  static func callIsStuck(_ failure: String) { thread.reportStuck(failure) }

  /// Whether a call was abandoned: its thread may still hold GLib's locks.
  static var abandonedACall: Bool { thread.abandonment != nil }
}
