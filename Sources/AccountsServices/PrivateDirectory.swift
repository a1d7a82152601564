import AccountsCore
import AccountsSystem
import Glibc

/// A directory only its user may change: the lease store's, the token files'. It must be the
/// user's own, a real directory (not a symbolic link), writable by nobody else, and every
/// directory above it must pass `SafePath`: owned by the user or root, writable by nobody
/// else (a root-owned sticky directory such as /tmp passes, the entries in it checked).
struct PrivateDirectory {
  let path: String
  let userID: uid_t
  /// Also refused when group or others may read or enter it (the token files' directory).
  var closed = false

  /// Checks the directory, creating it (and what is missing above it) 0700 when `create`.
  /// False when it does not exist and `create` is false.
  func prepare(create: Bool) throws(FileError) -> Bool {
    // The directories above first, so nothing is created below one that is refused.
    if case .failure(let refusal) = SafePath(userID: userID).resolveIfPresent(path) {
      throw .refused(path: path, reason: refusal.problem, fix: refusal.fix ?? "check the directories above it")
    }
    var status = stat()
    if lstat(path, &status) != 0 {
      guard errno == ENOENT else { throw .unreadable(path: path, errno: errno) }
      guard create else { return false }
      try makeDirectories(for: path + "/x")
      guard lstat(path, &status) == 0 else { throw .unwritable(path: path, errno: errno) }
    }
    if let reason = problem(status) {
      throw .refused(path: path, reason: reason, fix: "move it away: accounts creates its own")
    }
    if closed, status.st_mode & 0o077 != 0 {
      throw .refused(
        path: path, reason: "group or others have access to it (mode \(octalMode(status.st_mode)))",
        fix: "`chmod 700 \(path)`, or move it away: accounts creates its own")
    }
    return true
  }

  private func problem(_ status: stat) -> String? {
    if status.st_mode & S_IFMT == S_IFLNK { return "it is a symbolic link, not a directory" }
    if status.st_mode & S_IFMT != S_IFDIR { return "it is not a directory" }
    if status.st_uid != userID { return "it is owned by uid \(status.st_uid), not by you (uid \(userID))" }
    if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
      return "it is writable by group or others (mode \(octalMode(status.st_mode)))"
    }
    return nil
  }
}
