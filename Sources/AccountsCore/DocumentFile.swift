import Glibc

/// A small file that several `accounts` processes may change at once (the index, the config).
///
/// Readers never lock: writers replace the file with `rename`, so a reader sees the old or the
/// new content, never a mix. Writers serialise on an exclusive `flock` of `<file>.lock`, re-read
/// the file under the lock, write `<file>.tmp`, `fsync` it, keep the previous version as
/// `<file>.bak`, and `rename` the new one into place. A writer killed at any point leaves the old
/// or the new file. Files are created 0600 in directories created 0700.
public struct DocumentFile: Sendable {
  public let path: String
  /// Test hook: stop the process (SIGSTOP) half-way through writing the temporary file, so a
  /// test can SIGKILL a writer mid-write. Set from ACCOUNTS_TEST_STALL_WRITE.
  let stallMidWrite: Bool

  public init(path: String, stallMidWrite: Bool = false) {
    self.path = path
    self.stallMidWrite = stallMidWrite
  }

  public var lockPath: String { path + ".lock" }
  public var backupPath: String { path + ".bak" }
  var temporaryPath: String { path + ".tmp" }

  /// The file's bytes, or nil when it does not exist.
  public func read() throws(FileError) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    if descriptor < 0 {
      if errno == ENOENT { return nil }
      throw .unreadable(path: path, errno: errno)
    }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var status = stat()
    if fstat(descriptor, &status) == 0 { bytes.reserveCapacity(Int(status.st_size)) }
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .unreadable(path: path, errno: errno)
      }
      if count == 0 { break }
      bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
  }

  /// Under the lock, hands the current bytes (nil: no file) to `change`, which returns the new
  /// bytes (nil: leave the file alone) and a result.
  public func update<Result>(
    _ change: ([UInt8]?) throws -> (bytes: [UInt8]?, result: Result)
  ) throws -> Result {
    try makeDirectories(for: path)
    let lock = try acquireLock()
    defer { close(lock) }  // closing the descriptor releases the flock
    let (bytes, result) = try change(try read())
    if let bytes { try replace(with: bytes) }
    return result
  }

  /// Waits for the exclusive lock, bounded: a writer that hangs must not hang every other one.
  private func acquireLock() throws(FileError) -> Int32 {
    let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else { throw .unwritable(path: lockPath, errno: errno) }
    let limitSeconds = 15
    let start = Timestamp.now()
    var pause: Int = 1_000_000  // nanoseconds, doubling up to 20 ms
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else {
        let code = errno
        close(descriptor)
        throw .unwritable(path: lockPath, errno: code)
      }
      if Timestamp.now().secondsSince1970 - start.secondsSince1970 >= limitSeconds {
        close(descriptor)
        throw .busy(lockPath: lockPath, seconds: limitSeconds)
      }
      var request = timespec(tv_sec: 0, tv_nsec: pause)
      nanosleep(&request, nil)
      pause = min(pause * 2, 20_000_000)
    }
    return descriptor
  }

  private func replace(with bytes: [UInt8]) throws(FileError) {
    let temporary = temporaryPath
    unlink(temporary)  // a stale one from a writer that was killed
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else { throw .unwritable(path: temporary, errno: errno) }
    var failure: Int32 = 0
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        if stallMidWrite, offset == 0, raw.count > 1 {
          let half = raw.count / 2
          _ = write(descriptor, raw.baseAddress!, half)
          offset = half
          raise(SIGSTOP)
          continue
        }
        let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          failure = errno
          return
        }
        offset += written
      }
    }
    if failure == 0, fsync(descriptor) != 0 { failure = errno }
    close(descriptor)
    guard failure == 0 else {
      unlink(temporary)
      throw .unwritable(path: temporary, errno: failure)
    }
    // Keep the version being replaced: a hard link costs nothing and survives the rename.
    unlink(backupPath)
    _ = link(path, backupPath)
    guard rename(temporary, path) == 0 else {
      let code = errno
      unlink(temporary)
      throw .unwritable(path: path, errno: code)
    }
    syncDirectory(of: path)
  }
}

/// Creates the missing directories above `file`, each 0700.
func makeDirectories(for file: String) throws(FileError) {
  var directories: [String] = []
  var current = parentDirectory(of: file)
  while !current.isEmpty, current != "/", access(current, F_OK) != 0 {
    directories.append(current)
    current = parentDirectory(of: current)
  }
  for directory in directories.reversed() where mkdir(directory, 0o700) != 0 && errno != EEXIST {
    throw .unwritable(path: directory, errno: errno)
  }
}

func parentDirectory(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return "." }
  return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// Makes the rename durable: without it a crash can bring back the old directory entry.
private func syncDirectory(of path: String) {
  let descriptor = open(parentDirectory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
  guard descriptor >= 0 else { return }
  fsync(descriptor)
  close(descriptor)
}
