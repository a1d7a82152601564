import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc

/// `--refresh` of `exec` and `lease`: while CMD runs, its sessions are kept live by the token
/// refresher (`TokenRefresher`, a process of its own), and $ACCOUNTS_TOKEN_FILE always holds a
/// live token. The options and the start-up, written once for both commands.
struct SessionRefresh {
  static let refresh = OptionSpec(
    "refresh",
    help: "keep the session live while CMD runs: renewed at 80% of its lifetime with its refresh token or the remembered password, "
      + "its token always in the file $ACCOUNTS_TOKEN_FILE")
  static let check = OptionSpec(
    "refresh-check", value: "DURATION", kind: .duration(forms: "1s, 30s, 10m or 1h"),
    help: "with --refresh: how often the backend is asked whether the session still lives, between renewals "
      + "(default 60s; at least 1s)")

  /// The help's paragraph on `--refresh`, for both commands.
  static let discussion = """
    With --refresh, the session is kept live while CMD runs: a process of its own renews it \
    (with its refresh token when it has one, else logging in with the remembered password) \
    at 80% of the session's lifetime, and when the \
    backend's session check (every --refresh-check, 60s by default; backends with a \
    check_path) says it ended early, and writes the new token to the file $ACCOUNTS_TOKEN_FILE \
    (the token alone, no newline; 0600, replaced atomically: read it at each use). The new \
    session is recorded as any login's (`accounts token` prints it); ACCOUNTS_TOKEN keeps the \
    first token; each renewal uses the backend's settings as they are then. The file is in \
    $XDG_RUNTIME_DIR/accounts/tokens (which must be 0700: one open to others is refused, \
    checked before any login) and is removed as soon as CMD (and whatever it started that keeps \
    its descriptors) has ended, a moment after; if the refresher itself is killed, it is left \
    there until the runtime directory is cleared at logout. A failed renewal is said on stderr \
    and tried again after 1s, 2s, 4s... up to a minute apart (and before the session ends); CMD \
    is not killed. A login the backend rejects is not sent again (lockouts): one line names \
    what to check, and the account is no longer renewed; nor is an account removed meanwhile. \
    --refresh needs a refresh token or a remembered password, and to log in with the password \
    on a backend that asks for a one-time code a kept TOTP seed (`accounts otp set`): without \
    them, exit 3 before the login and CMD.
    """

  /// How often the backend is asked.
  let checkMilliseconds: Int64

  /// `--refresh` as given; nil without it.
  init?(_ invocation: Invocation) throws {
    let checkText = invocation.value(Self.check)
    guard invocation.isSet(Self.refresh) else {
      if checkText != nil { throw CommandError.usage("--refresh-check needs --refresh", fix: "add --refresh") }
      return nil
    }
    checkMilliseconds = invocation.milliseconds(Self.check) ?? RefreshSchedule.defaultCheckMilliseconds
    guard checkMilliseconds >= 1000 else {
      throw CommandError.usage("--refresh-check \(Names.printable(checkText ?? "")) is too often", fix: "give 1s or more")
    }
  }

  /// `exec`, before its login: the account can be renewed and the token files have a place.
  func prepare(_ id: AccountID, in book: AccountBook, _ flow: SessionFlow, _ environment: Environment) throws {
    try requireRenewable(id, in: book, flow)
    try prepareDirectory(environment)
  }

  /// Refuses an account nothing could renew while CMD runs (exit 3): it has neither a refresh
  /// token nor a remembered password, or only the password and its backend wants a one-time
  /// code and no TOTP seed is kept to compute it.
  func requireRenewable(_ id: AccountID, in book: AccountBook, _ flow: SessionFlow) throws {
    guard let account = book[id], account.renewable else {
      throw CommandError(
        .loginRequired,
        "--refresh needs a refresh token or the remembered password of \(id), to renew the session while the command runs",
        fix: try flow.prepare(id.backend).loginNeeds.contains(.password)
          ? "remember it with `accounts passwd \(id)` (or `accounts login \(id) --remember`)"
          : "log in first with `accounts login \(id)` on a terminal: it keeps a refresh token")
    }
    if account.token?.refreshable != true, !account.otp, try flow.prepare(id.backend).needsOneTimeCode {
      throw CommandError(
        .loginRequired, "--refresh logs in again on its own: \(id) needs a kept TOTP seed",
        fix: "`accounts otp set \(book.shortestName(for: id))`")
    }
  }

  /// Checks (and creates 0700) the directory of the token files, before any login.
  func prepareDirectory(_ environment: Environment) throws {
    try TokenFile.prepareDirectory(environment: environment.variables)
  }

  /// Writes each session's token file and starts the refresher (`TokenRefresher.start`).
  func start(
    _ sessions: [ActiveSession], leases: [AccountID: String] = [:], timeout: Double, _ environment: Environment
  ) throws -> [TokenFile] {
    try TokenRefresher.start(
      sessions, leases: leases, checkMilliseconds: checkMilliseconds, timeout: timeout,
      command: TokenRefresherCommand.spec.name, environment: environment.variables)
  }
}
