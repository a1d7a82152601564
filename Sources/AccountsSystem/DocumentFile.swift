import Glibc

/// A small file that several `accounts` processes may change at once (the index, the config).
///
/// Readers never lock: writers replace the file with `rename`, so a reader sees the old or the
/// new content, never a mix. Writers serialise on an exclusive `flock` of `<file>.lock`, re-read
/// the file under the lock, write `<target>.tmp`, `fsync` it, keep the previous version as
/// `<target>.bak`, and `rename` the new one into place. A writer killed at any point leaves the
/// old or the new file. Files are created 0600 in directories created 0700.
///
/// What is read is checked first, by the rules adapters pass too (`SafePath`): every directory
/// on the way, and every symbolic link, owned by the user or root and writable by nobody else
/// (root's sticky /tmp aside); the file a regular one (a FIFO would hang every command, a link
/// to /dev/zero would read for ever), owned by the user or root, writable by nobody else, and
/// at most `sizeLimit` bytes. A file that is a symbolic link (a dotfiles repository) is read
/// and written through the link.
public struct DocumentFile: Sendable {
  public let path: String
  let trust: SafePath

  /// The most a document may hold: about 50,000 accounts.
  public static let sizeLimit = 16 << 20

  public init(path: String, userID: uid_t = getuid()) {
    self.path = path
    trust = SafePath(userID: userID)
  }

  public var lockPath: String { path + ".lock" }
  /// The previous version, beside the file the path leads to.
  public var backupPath: String { (resolvedTarget() ?? path) + ".bak" }

  /// The file's bytes, or nil when it does not exist.
  public func read() throws(FileError) -> [UInt8]? {
    guard let target = try checkedTarget() else {
      if let dangling = danglingLinkTarget() { throw danglingLink(dangling) }
      return nil
    }
    let descriptor: FileDescriptor
    do {
      // O_NONBLOCK: should a FIFO be put there after the check, opening it must not wait.
      descriptor = try .open(target.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
    } catch {
      if error.code == ENOENT { return nil }  // removed since the check: there is none
      throw .unreadable(path: path, errno: error.code)
    }
    defer { descriptor.close() }
    let status: stat
    do {
      status = try descriptor.status()
    } catch {
      throw .unreadable(path: path, errno: error.code)
    }
    if let problem = trust.fileProblem(status, path: target.path) { throw refused(problem) }
    guard Int(status.st_size) <= Self.sizeLimit else { throw .tooLarge(path: path, limit: Self.sizeLimit) }
    let bytes: [UInt8]?
    do {
      bytes = try descriptor.readAll(limit: Self.sizeLimit, expected: Int(status.st_size))
    } catch {
      throw .unreadable(path: path, errno: error.code)
    }
    guard let bytes else { throw .tooLarge(path: path, limit: Self.sizeLimit) }
    return bytes
  }

  /// Where the path leads, checked name by name and as a file; nil when there is no file yet.
  private func checkedTarget() throws(FileError) -> SafePath.Target? {
    switch trust.resolveIfPresent(path) {
    case .failure(let refusal): throw refused(refusal)
    case .success(nil): return nil
    case .success(let target?):
      if let problem = trust.fileProblem(target.status, path: target.path) { throw refused(problem) }
      return target
    }
  }

  private func refused(_ refusal: Refusal) -> FileError {
    .refused(
      path: path, reason: refusal.problem,
      fix: refusal.fix.map { "check who changed it, then run: \($0)" } ?? "check \(path) and the directories above it")
  }

  /// The file under the writers' lock: `body` reads what is there now and may replace it, as
  /// often as it needs, before the lock is released.
  public func withLock<Result>(_ body: (inout Transaction) throws -> Result) throws -> Result {
    try makeDirectories(for: path)
    let lock = try acquireLock()
    defer { lock.close() }  // closing the descriptor releases the flock
    var transaction = Transaction(file: self, bytes: try read())
    return try body(&transaction)
  }

  /// Under the lock, hands the current bytes (nil: no file) to `change`, which returns the new
  /// bytes (nil: leave the file alone) and a result.
  public func update<Result>(
    _ change: ([UInt8]?) throws -> (bytes: [UInt8]?, result: Result)
  ) throws -> Result {
    try withLock { transaction in
      let (bytes, result) = try change(transaction.bytes)
      if let bytes { try transaction.write(bytes) }
      return result
    }
  }

  /// The file while its writers' lock is held.
  public struct Transaction {
    public let file: DocumentFile
    /// The content now: read under the lock, then what this transaction wrote.
    public private(set) var bytes: [UInt8]?

    /// Replaces the file (temporary file, fsync, backup, rename).
    public mutating func write(_ bytes: [UInt8]) throws(FileError) {
      try file.replace(with: bytes)
      self.bytes = bytes
    }
  }

  /// Waits for the exclusive lock, bounded: a writer that hangs must not hang every other one.
  ///
  /// A writer that waits says so with a second lock on the same file (an OFD write lock, which
  /// Linux keeps apart from the flock), and a writer that finds another one waiting lets it go
  /// first, for a quarter of a second at most. So a writer that takes the lock again straight
  /// after releasing it (`import`, one account at a time) lets a waiting command in between
  /// its turns: without it, a waiter polling every 20 ms almost never found the lock free and
  /// gave up after 15 s. The signal is no gate: a stopped waiter costs the others a quarter
  /// second, never the lock.
  private func acquireLock(limitSeconds: Int = 15) throws(FileError) -> FileDescriptor {
    let descriptor: FileDescriptor
    do {
      descriptor = try .open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, mode: 0o600)
    } catch {
      throw .unwritable(path: lockPath, errno: error.code)
    }
    if let status = try? descriptor.status(), status.st_mode & S_IFMT != S_IFREG {
      descriptor.close()
      throw .refused(path: lockPath, reason: "not a regular file", fix: "remove it")
    }
    let start = monotonicSeconds()
    let politeUntil = monotonicNanoseconds() + 250_000_000
    var waiting = false  // this writer holds the signal
    var pause: Int = 1_000_000  // nanoseconds, doubling up to 20 ms
    while true {
      if !waiting { waiting = (try? descriptor.tryLock()) ?? false }
      let yielding =
        !waiting && monotonicNanoseconds() < politeUntil && ((try? descriptor.isLockedElsewhere()) ?? false)
      if !yielding {
        do {
          if try descriptor.tryExclusiveFlock() { break }
        } catch {
          descriptor.close()
          throw .unwritable(path: lockPath, errno: error.code)
        }
      }
      if monotonicSeconds() - start >= Double(limitSeconds) {
        descriptor.close()
        throw .busy(lockPath: lockPath, seconds: limitSeconds)
      }
      sleep(seconds: Double(yielding ? 2_000_000 : pause) / 1e9)
      if !yielding { pause = min(pause * 2, 20_000_000) }
    }
    if waiting { try? descriptor.unlock() }
    return descriptor
  }

  /// Writes `bytes` to a temporary file beside the target, makes it durable, keeps the old
  /// version as the backup and renames the new one into place. Nothing is changed unless every
  /// byte reached the disk.
  private func replace(with bytes: [UInt8]) throws(FileError) {
    // Never write what a later read refuses: the old version stays instead.
    guard bytes.count <= Self.sizeLimit else { throw .tooLargeToWrite(path: path, limit: Self.sizeLimit) }
    let target = try writeTarget()
    try replaceDurably(target, with: bytes, reportingAs: path) {
      // Keep the version being replaced: a hard link costs nothing and survives the rename.
      let backup = target + ".bak"
      unlink(backup)
      _ = link(target, backup)
    }
  }

  /// The file a write replaces: the path itself when it does not exist yet, else the file it
  /// leads to (through a symbolic link), checked as a read checks it.
  private func writeTarget() throws(FileError) -> String {
    if let target = try checkedTarget() { return target.path }
    if let dangling = danglingLinkTarget() { throw danglingLink(dangling) }
    return path
  }

  /// The real path of the file when `path` is a symbolic link that leads to one.
  private func resolvedTarget() -> String? {
    var status = stat()
    guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
      let resolved = realpath(path, nil)
    else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Where `path` points when it is a symbolic link to nothing.
  private func danglingLinkTarget() -> String? {
    var status = stat()
    guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count >= 0 else { return "?" }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private func danglingLink(_ target: String) -> FileError {
    .refused(
      path: path, reason: "a symbolic link to \(TerminalText.printable(target, limit: 200)), which does not exist",
      fix: "create the file it points to, or remove the link")
  }
}

/// Creates the missing directories above `file`, each 0700.
public func makeDirectories(for file: String) throws(FileError) {
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

public func parentDirectory(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return "." }
  return slash == path.startIndex ? "/" : String(path[..<slash])
}
