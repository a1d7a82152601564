import CAccountsSystem
import Glibc

/// Write locks that belong to the open file description, not to the process (fcntl(2)
/// `F_OFD_SETLK`): unlike a POSIX record lock, closing some other descriptor of the same file
/// does not drop it, threads of one process exclude each other, and unlike flock(2) it is
/// tested without being taken (`F_OFD_GETLK`). It is inherited across fork and exec with the
/// descriptor, and the kernel releases it when the last descriptor of that open file
/// description closes, however its processes end: a lock never outlives its holders. The one
/// implementation for leases (the whole file), sessions (a byte per account) and the waiting
/// writers of documents.
public struct LockRange: Equatable, Sendable {
  public var start: Int
  /// 0: to the end of the file, however long it grows.
  public var length: Int

  public init(start: Int, length: Int) {
    self.start = start
    self.length = length
  }

  public static let wholeFile = LockRange(start: 0, length: 0)

  /// One byte, at `offset`.
  public static func byte(_ offset: Int) -> LockRange { LockRange(start: offset, length: 1) }
}

extension FileDescriptor {
  /// Takes the write lock on `range` without waiting: true when taken, false when another open
  /// file description holds a lock there. The descriptor must be open for writing.
  public func tryLock(_ range: LockRange = .wholeFile) throws(Errno) -> Bool {
    do throws(Errno) {
      _ = try fileLock(F_OFD_SETLK, F_WRLCK, range)
      return true
    } catch where error.code == EAGAIN || error.code == EACCES {
      return false
    }
  }

  /// Drops the lock this open file description holds on `range` (the descriptor stays open).
  public func unlock(_ range: LockRange = .wholeFile) throws(Errno) {
    _ = try fileLock(F_OFD_SETLK, F_UNLCK, range)
  }

  /// Whether another open file description holds a lock on any part of `range`. Takes nothing,
  /// so asking never makes anyone's `tryLock` fail. A lock held through this very open file
  /// description does not count.
  public func isLockedElsewhere(_ range: LockRange = .wholeFile) throws(Errno) -> Bool {
    try fileLock(F_OFD_GETLK, F_WRLCK, range) != Int16(F_UNLCK)
  }

  /// The whole file's write lock without waiting (`tryLock`, for the lease store's files).
  public func tryLockWholeFile() throws(Errno) -> Bool { try tryLock(.wholeFile) }

  /// Drops the whole file's lock.
  public func unlockWholeFile() throws(Errno) { try unlock(.wholeFile) }

  /// One fcntl lock call; the lock type it leaves (F_OFD_GETLK's answer).
  private func fileLock(_ command: Int32, _ type: Int32, _ range: LockRange) throws(Errno) -> Int16 {
    var type = Int16(type)
    _ = try retryingInterrupts {
      accounts_open_file_lock(rawValue, command, &type, off_t(range.start), off_t(range.length))
    }
    return type
  }

  /// flock(2)'s exclusive lock without waiting: true when taken, false when another open file
  /// description holds it (documents, whose writers take it as SPEC §2 says: other tools, and
  /// `flock(1)`, can hold it too).
  public func tryExclusiveFlock() throws(Errno) -> Bool {
    do throws(Errno) {
      _ = try retryingInterrupts { flock(rawValue, LOCK_EX | LOCK_NB) }
      return true
    } catch where error.code == EWOULDBLOCK {
      return false
    }
  }

  /// Whether the descriptor stays open in a program this process `exec`s (clears or sets
  /// FD_CLOEXEC). Descriptors are opened close-on-exec (see `open`); a child command that
  /// must inherit one is handed it explicitly.
  public func setInheritedAcrossExec(_ inherited: Bool) throws(Errno) {
    let flags = try retryingInterrupts { fcntl(rawValue, F_GETFD) }
    let wanted = inherited ? flags & ~FD_CLOEXEC : flags | FD_CLOEXEC
    _ = try retryingInterrupts { fcntl(rawValue, F_SETFD, wanted) }
  }

  /// Reads and writes on it return at once instead of waiting (O_NONBLOCK).
  public func setNonBlocking() throws(Errno) {
    let flags = try retryingInterrupts { fcntl(rawValue, F_GETFL) }
    _ = try retryingInterrupts { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
  }

  /// A close-on-exec copy numbered `minimum` or more (F_DUPFD_CLOEXEC).
  public func duplicate(atLeast minimum: Int32) throws(Errno) -> FileDescriptor {
    FileDescriptor(rawValue: try retryingInterrupts { fcntl(rawValue, F_DUPFD_CLOEXEC, minimum) })
  }

  /// Whether this number is an open descriptor of the process.
  public var isOpen: Bool { fcntl(rawValue, F_GETFD) >= 0 || errno != EBADF }
}
