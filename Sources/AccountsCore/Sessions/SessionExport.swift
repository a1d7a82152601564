import AccountsSystem
import SecretMemory
/// The environment variables that hand a session to another program (`exec`, `shell`, `env`,
/// hooks), and the one rule for what they can carry. A login checks its session against it
/// before storing anything, so a session that is stored can always be handed on; the commands
/// that export check again for sessions stored before the rule existed.
public enum SessionExport {
  public static let tokenVariable = "ACCOUNTS_TOKEN"
  public static let userIDVariable = "ACCOUNTS_USER_ID"

  /// The longest environment string Linux starts a program with, NAME=VALUE and its NUL
  /// (MAX_ARG_STRLEN: 32 pages, of 4 KiB on every machine with the smallest pages): `execve`
  /// fails with E2BIG for any program handed a longer one.
  public static let stringLimit = 32 * 4096

  /// The most bytes a value of `name` can have.
  public static func valueLimit(_ name: String) -> Int {
    stringLimit - name.utf8.count - 2  // "=" and the NUL
  }

  /// Why `value` cannot be the environment variable `name` ("contains a NUL byte", "is 200000
  /// bytes, ..."), or nil when it can.
  public static func problem(_ name: String, _ value: some Collection<UInt8>) -> String? {
    if value.contains(0) { return "contains a NUL byte, which no environment variable can hold" }
    let limit = valueLimit(name)
    guard value.count > limit else { return nil }
    return "is \(value.count) bytes, more than the \(limit) an environment variable \(name) can hold on Linux"
  }

  /// The first variable of `session` that no environment can carry, and why; nil when all fit.
  /// The account's own name is ours and always fits.
  public static func problem(token: SecretBytes, userID: String?) -> (name: String, problem: String)? {
    if let problem = token.withUnsafeBytes({ problem(tokenVariable, $0) }) { return (tokenVariable, problem) }
    if let userID, let problem = problem(userIDVariable, userID.utf8) { return (userIDVariable, problem) }
    return nil
  }
}
