/// The documented exit statuses (SPEC §3). Scripts depend on these numbers; never renumber.
public enum ExitStatus: Int32, CaseIterable, Sendable {
  case success = 0
  case failure = 1
  case usage = 2
  case loginRequired = 3
  case credentialsRejected = 4
  case sessionEnded = 5
  case upgradeRequired = 6
  case secretStoreUnavailable = 7
  case backendUnavailable = 8
  case adapterFailed = 9
  /// `lease`: not enough accounts were free within --wait.
  case noAccountFree = 10
  /// `exec`: the command was found but could not run (as `env(1)` and shells say it).
  case commandNotRunnable = 126
  /// `exec`: no such command.
  case commandNotFound = 127
  case cancelled = 130

  /// One line for the man page and `--help`.
  public var meaning: String {
    switch self {
    case .success: "success"
    case .failure: "any other failure"
    case .usage: "usage error: unknown command or option, missing or extra argument"
    case .loginRequired:
      "login required: no such account, no token and no remembered password, no one-time code, or no such secret"
    case .credentialsRejected: "the backend rejected the credentials"
    case .sessionEnded: "the session expired or was taken over by another login"
    case .upgradeRequired: "the backend requires a newer client"
    case .secretStoreUnavailable: "the Secret Service is unavailable, timed out, or locked"
    case .backendUnavailable: "network or backend error"
    case .adapterFailed: "an adapter was refused, failed to load, or failed"
    case .noAccountFree: "lease: not enough accounts were free within --wait"
    case .commandNotRunnable: "exec: the command could not run (not executable, permission denied, wrong format)"
    case .commandNotFound: "exec: the command was not found"
    case .cancelled: "cancelled at the picker (Esc or Ctrl-C)"
    }
  }
}
