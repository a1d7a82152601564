import AccountsSystem
import Glibc
import Synchronization

/// One login at a time for each account, across every `accounts` process: when eight scripts
/// find the same session expired, one logs in again and the others take its new session, rather
/// than eight logins each taking the session over from the one before (single sign-on).
///
/// Each account is one byte of one lock file beside the index, locked with an open file
/// description lock (F_OFD_SETLK): it belongs to the descriptor, so threads of one process
/// exclude each other too, and the kernel drops it when a process dies. Two accounts that share
/// a byte only wait for each other. Reentrant within a flow: the login that a verdict leads to
/// runs under the lock the verdict took.
final class SessionLocks: Sendable {
  let path: String
  /// Seconds to wait for another command's login before giving up.
  let wait: Double
  /// The accounts whose lock this process holds.
  private let held = Mutex<Set<AccountID>>([])

  init(path: String, wait: Double) {
    self.path = path
    self.wait = wait
  }

  func exclusive<Result>(_ id: AccountID, _ body: () throws -> Result) throws -> Result {
    if held.withLock({ $0.contains(id) }) { return try body() }
    let descriptor = try acquire(id)
    held.withLock { _ = $0.insert(id) }
    defer {
      held.withLock { _ = $0.remove(id) }
      close(descriptor)  // releases the lock
    }
    return try body()
  }

  private func acquire(_ id: AccountID) throws -> Int32 {
    try makeDirectories(for: path)  // a first login may come before the index exists
    let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o600)
    guard descriptor >= 0 else { throw FileError.unwritable(path: path, errno: errno) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      close(descriptor)
      throw FileError.refused(path: path, reason: "not a regular file", fix: "remove it")
    }
    var request = flock()
    request.l_type = Int16(F_WRLCK)
    request.l_whence = Int16(SEEK_SET)
    request.l_start = off_t(Self.slot(id))
    request.l_len = 1
    let start = monotonicSeconds()
    while fcntl(descriptor, Self.setOFDLock, &request) != 0 {
      let code = errno
      guard code == EAGAIN || code == EACCES || code == EINTR else {
        close(descriptor)
        throw FileError.unwritable(path: path, errno: code)
      }
      if monotonicSeconds() - start > wait {
        close(descriptor)
        throw CommandError(
          .backendUnavailable, "another accounts command has been logging \(id) in for \(Int(wait)) s",
          fix: "wait for it to finish, then try again")
      }
      var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
      nanosleep(&pause, nil)
    }
    return descriptor
  }

  /// F_OFD_SETLK (Linux 3.15), which Glibc's module does not export.
  static let setOFDLock: Int32 = 37

  /// The byte that stands for `id`: FNV-1a of its name, within the first MiB.
  static func slot(_ id: AccountID) -> Int {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in id.description.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return Int(hash % (1 << 20))
  }
}

private func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
