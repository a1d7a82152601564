import AccountsCore
import AccountsContract
import AccountsSystem
import Glibc

/// accounts' directory for files that should last no longer than the user's login: the lease
/// store's locks (`leases`) and the token files of `--refresh` (`tokens`).
public enum RuntimeDirectory {
  /// `$XDG_RUNTIME_DIR/accounts` (per user, cleared at logout); without XDG_RUNTIME_DIR, the
  /// same under `/run/user/UID` when that is the user's own private directory; else the state
  /// directory. Never /tmp, never the working directory.
  public static func path(
    environment: [String: String], userID: uid_t = getuid(), systemRuntime: String = "/run/user"
  ) throws(CommandError) -> String {
    if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/accounts" }
    // A process started without the variable (env -i, cron, sudo -u) still finds what the
    // desktop session's processes keep: the system's runtime directory for this user, when it
    // is there and private to the user, is the one XDG_RUNTIME_DIR would have named.
    let own = "\(systemRuntime)/\(userID)"
    var status = stat()
    if lstat(own, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == userID,
      status.st_mode & 0o077 == 0
    {
      return own + "/accounts"
    }
    return try Paths(environment: environment).stateDirectory
  }
}
