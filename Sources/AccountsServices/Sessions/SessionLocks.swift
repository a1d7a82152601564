import AccountsCore
import AccountsContract
import AccountsSystem
import Glibc
import Synchronization

/// The session locks (`SessionLocking`) of every `accounts` process of one index.
///
/// Each account is one byte of one lock file beside the index, locked with an open file
/// description lock (F_OFD_SETLK): it belongs to the descriptor, so threads of one process
/// exclude each other too, and the kernel drops it when a process dies. Two accounts that share
/// a byte only wait for each other. Reentrant within a flow: the login that a verdict leads to
/// runs under the lock the verdict took.
public final class SessionLocks: SessionLocking {
  let path: String
  /// Seconds to wait for another command's login before giving up.
  let wait: Double
  /// The accounts whose lock this process holds.
  private let held = Mutex<Set<AccountID>>([])

  /// The locks beside the index `index`, waiting `wait` seconds at most for another
  /// command's login.
  public convenience init(index: String, wait: Double) {
    self.init(path: index + ".sessions.lock", wait: wait)
  }

  init(path: String, wait: Double) {
    self.path = path
    self.wait = wait
  }

  public func exclusive<Result>(_ id: AccountID, _ body: () throws -> Result) throws -> Result {
    if held.withLock({ $0.contains(id) }) { return try body() }
    let descriptor = try acquire(id)
    held.withLock { _ = $0.insert(id) }
    defer {
      held.withLock { _ = $0.remove(id) }
      descriptor.close()  // releases the lock
    }
    return try body()
  }

  private func acquire(_ id: AccountID) throws -> FileDescriptor {
    try makeDirectories(for: path)  // a first login may come before the index exists
    let descriptor: FileDescriptor
    do {
      descriptor = try .open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode: 0o600)
    } catch {
      throw FileError.unwritable(path: path, errno: error.code)
    }
    guard let status = try? descriptor.status(), status.st_mode & S_IFMT == S_IFREG else {
      descriptor.close()
      throw FileError.refused(path: path, reason: "not a regular file", fix: "remove it")
    }
    let start = monotonicNanoseconds()
    while true {
      do {
        if try descriptor.tryLock(.byte(Self.slot(id))) { return descriptor }
      } catch {
        descriptor.close()
        throw FileError.unwritable(path: path, errno: error.code)
      }
      if Double(monotonicNanoseconds() - start) / 1e9 > wait {
        descriptor.close()
        throw CommandError(
          .backendUnavailable, "another accounts command has been logging \(id) in for \(Int(wait)) s",
          fix: "wait for it to finish, then try again")
      }
      sleep(seconds: 0.01)
    }
  }

  /// The byte that stands for `id`: its name hash, within the first MiB.
  static func slot(_ id: AccountID) -> Int {
    Int(NameHash.value(id.description) % (1 << 20))
  }
}
