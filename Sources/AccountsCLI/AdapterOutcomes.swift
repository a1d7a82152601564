import AccountsCore

/// How an adapter's answer ends a command: the exit statuses of SPEC §3.
extension AdapterOutcome {
  /// The error for an outcome other than `.ok`, naming `subject` (an account or a backend).
  func failure(_ subject: String) -> CommandError? {
    switch self {
    case .ok: nil
    case .wrongPassword(let message):
      CommandError(.credentialsRejected, "\(subject): \(message)", fix: "check the user name and password")
    case .sessionExpired(let message):
      CommandError(.sessionEnded, "\(subject): \(message)", fix: "log in again")
    case .kicked(let message):
      CommandError(.sessionEnded, "\(subject): signed in elsewhere (\(message))", fix: "log in again when you want this session back")
    case .upgradeRequired(let message, let link):
      CommandError(.upgradeRequired, "\(subject): \(message)", fix: link.isEmpty ? nil : "get the update: \(link)")
    case .backendError(let message): CommandError(.backendUnavailable, "\(subject): \(message)")
    case .adapterFailed(let message): CommandError(.adapterFailed, "\(subject): \(message)")
    }
  }
}

/// "45 s", "59 min", "1 h", "2 h 30 min", "3 d"
enum Duration {
  static func text(seconds: Int64) -> String {
    switch seconds {
    case ..<60: "\(seconds) s"
    case ..<3600: "\(seconds / 60) min"
    case ..<86400:
      seconds % 3600 >= 60 ? "\(seconds / 3600) h \(seconds % 3600 / 60) min" : "\(seconds / 3600) h"
    default: "\(seconds / 86400) d"
    }
  }
}
