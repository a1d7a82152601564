/// An error that knows how to explain itself: what went wrong, how to fix it, and the exit
/// status it ends the process with. Commands throw these; one place in AccountsCLI prints them.
///
/// `message` and `fix` are shown to the user on one line, so they never contain a secret.
public protocol UserFacingError: Error {
  var status: ExitStatus { get }
  /// What went wrong, naming the thing (account, file, backend).
  var message: String { get }
  /// What the user can do about it, or nil when there is nothing to do.
  var fix: String? { get }
}

extension UserFacingError {
  /// The message and its fix, as one line says them: "MESSAGE; FIX".
  public var explanation: String { message + (fix.map { "; \($0)" } ?? "") }
}

/// A user-facing error with no further structure, for the many one-off cases of the commands.
public struct CommandError: UserFacingError, Equatable {
  public var status: ExitStatus
  public var message: String
  public var fix: String?

  public init(_ status: ExitStatus, _ message: String, fix: String? = nil) {
    self.status = status
    self.message = message
    self.fix = fix
  }

  public static func usage(_ message: String, fix: String? = nil) -> CommandError {
    CommandError(.usage, message, fix: fix)
  }
}
