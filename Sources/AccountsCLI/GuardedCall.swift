import AccountsCore
import Glibc

/// What the command line knows of a Secret Service call the library had to abandon.
///
/// libsecret 0.20.5 never completes a call whose provider vanished while its prompt was open,
/// and the cancellable no longer reaches it (a KeePassXC that exits with its access dialog
/// open). The library runs its calls on a worker thread of its own with one watchdog for the
/// process: a call still running a grace after its deadline (or after the provider left the
/// bus) is abandoned there, and the entry point answers with the `stuck` error itself. The
/// command then fails with exit status 7, and the process ends without running exit handlers
/// (`AccountsCommandLine.exit`): the abandoned thread may hold GLib's locks. The ledger's rules
/// cover the rest: a keyring call that was abandoned may still land, so its account stays
/// unsettled.
enum GuardedCall {
  nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    return mutex
  }()
  nonisolated(unsafe) private static var stuck: SecretStoreError?

  /// The stuck error of a call the library abandoned, once there was one.
  static var abandoned: SecretStoreError? {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return stuck
  }

  /// The error a library call answered with (its wire text); a stuck one is remembered.
  static func failure(_ wireText: String) -> SecretStoreError {
    let failure = SecretStoreError(wireText: wireText)
    if case .stuck = failure {
      pthread_mutex_lock(lock)
      stuck = stuck ?? failure
      pthread_mutex_unlock(lock)
    }
    return failure
  }
}
