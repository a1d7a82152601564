import CAccountsSystem
import Glibc

/// Write locks on a whole file that belong to the open file description, not to the process
/// (fcntl(2) `F_OFD_SETLK`): unlike a POSIX record lock, closing some other descriptor of the
/// same file does not drop it, and unlike flock(2) it is tested without being taken
/// (`F_OFD_GETLK`). It is inherited across fork and exec with the descriptor, and the kernel
/// releases it when the last descriptor of that open file description closes, however its
/// processes end: a lock never outlives its holders.
extension FileDescriptor {
  /// Takes the write lock on the whole file without waiting: true when taken, false when
  /// another open file description holds a lock on the file. The descriptor must be open for
  /// writing.
  public func tryLockWholeFile() throws(Errno) -> Bool {
    while true {
      var type = Int16(F_WRLCK)
      if accounts_open_file_lock(rawValue, F_OFD_SETLK, &type) == 0 { return true }
      switch errno {
      case EINTR: continue
      case EAGAIN, EACCES: return false
      default: throw .current
      }
    }
  }

  /// Drops the write lock `tryLockWholeFile` took through this open file description (the
  /// descriptor stays open).
  public func unlockWholeFile() throws(Errno) {
    while true {
      var type = Int16(F_UNLCK)
      if accounts_open_file_lock(rawValue, F_OFD_SETLK, &type) == 0 { return }
      if errno != EINTR { throw .current }
    }
  }

  /// Whether another open file description holds a lock on any part of the file. Takes
  /// nothing, so asking never makes anyone's `tryLockWholeFile` fail. A lock held through this
  /// very open file description does not count.
  public func isLockedElsewhere() throws(Errno) -> Bool {
    while true {
      var type = Int16(F_WRLCK)
      if accounts_open_file_lock(rawValue, F_OFD_GETLK, &type) == 0 { return type != Int16(F_UNLCK) }
      if errno != EINTR { throw .current }
    }
  }

  /// Whether the descriptor stays open in a program this process `exec`s (clears or sets
  /// FD_CLOEXEC). Descriptors are opened close-on-exec (see `open`); a child command that
  /// must inherit one is handed it explicitly.
  public func setInheritedAcrossExec(_ inherited: Bool) throws(Errno) {
    let flags = fcntl(rawValue, F_GETFD)
    guard flags >= 0 else { throw .current }
    let wanted = inherited ? flags & ~FD_CLOEXEC : flags | FD_CLOEXEC
    guard fcntl(rawValue, F_SETFD, wanted) == 0 else { throw .current }
  }
}

/// `count` bytes from the kernel's random pool (getrandom(2)), looping over short reads. The
/// pool never runs dry after boot; should the call fail anyway there is no safe way on.
public func randomBytes(count: Int) -> [UInt8] {
  var bytes = [UInt8](repeating: 0, count: count)
  bytes.withUnsafeMutableBytes { raw in
    var filled = 0
    while filled < raw.count {
      let got = accounts_getrandom(raw.baseAddress! + filled, raw.count - filled)
      if got < 0 {
        if errno == EINTR { continue }
        fatalError("getrandom failed: \(describeErrno(errno))")
      }
      filled += got
    }
  }
  return bytes
}

/// The SHA-256 digest of `bytes` in lowercase hexadecimal: a fixed-length file name for text
/// that may hold anything (a slash, a newline, a thousand characters).
public func sha256Hexadecimal(_ bytes: [UInt8]) -> String {
  let digits: [UInt8] = Array("0123456789abcdef".utf8)
  var text: [UInt8] = []
  text.reserveCapacity(64)
  for byte in SHA256.hash(bytes) {
    text.append(digits[Int(byte >> 4)])
    text.append(digits[Int(byte & 15)])
  }
  return String(decoding: text, as: UTF8.self)
}
