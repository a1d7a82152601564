import AccountsCore
import AccountsContract
import AccountsSystem
import Glibc

/// The local lease store's directory and its files, three per account, named by the name hash
/// of the account id (which may hold a slash, a newline, anything) and keeping the id inside:
/// - `<hash>.lock`: never removed; its open file description lock is the account's mutex, and
///   a held lease keeps it taken. It holds a copy of the fence counter.
/// - `<hash>.fence`: the last fencing token handed out.
/// - `<hash>.lease`: the record of the account's latest lease (possibly ended).
/// Files are 0600, replaced atomically (temporary file, fsync, rename), in a 0700 directory
/// that must be the user's own, a real directory (not a symbolic link), writable by nobody else.
struct LeaseDirectory {
  let path: String
  let userID: uid_t

  /// Records and counters are small; anything bigger was not written by accounts.
  static let fileSizeLimit = 1 << 20

  /// The files of one account.
  struct Files {
    let lock: String
    let fence: String
    let record: String
  }

  func files(of account: AccountID) -> Files {
    let stem = path + "/" + NameHash.hexadecimal(account.description)
    return Files(lock: stem + ".lock", fence: stem + ".fence", record: stem + ".lease")
  }

  /// Checks the directory, creating it (and what is missing above it) 0700 when `create`.
  /// False when it does not exist and `create` is false.
  func prepare(create: Bool) throws(FileError) -> Bool {
    try PrivateDirectory(path: path, userID: userID).prepare(create: create)
  }

  /// Opens (creating it) an account's lock file for reading and writing, close-on-exec.
  func openLock(_ file: String) throws(FileError) -> FileDescriptor {
    guard let descriptor = try openChecked(file, O_RDWR | O_CREAT, mode: 0o600) else {
      throw .unwritable(path: file, errno: ENOENT)  // O_CREAT: not reached
    }
    return descriptor
  }

  /// An account's lock file opened for asking about its lock, or nil when there is none.
  func openForReadingIfPresent(_ file: String) throws(FileError) -> FileDescriptor? {
    try openChecked(file, O_RDONLY, mode: nil)
  }

  /// `file` opened with `flags` (never through a link, never a terminal, never blocking on a
  /// FIFO) and checked like every file here; nil when it does not exist and is not created.
  private func openChecked(_ file: String, _ flags: Int32, mode: mode_t?) throws(FileError) -> FileDescriptor? {
    let descriptor: FileDescriptor
    do {
      descriptor = try .open(file, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode: mode ?? 0)
    } catch {
      if error.code == ENOENT, mode == nil { return nil }
      if error.code == ELOOP { throw refusedFile(file, "it is a symbolic link") }
      throw mode == nil ? .unreadable(path: file, errno: error.code) : .unwritable(path: file, errno: error.code)
    }
    do throws(FileError) {
      try check(descriptor, file)
    } catch {
      descriptor.close()
      throw error
    }
    return descriptor
  }

  /// A file's bytes, or nil when it does not exist.
  func read(_ file: String) throws(FileError) -> [UInt8]? {
    guard let descriptor = try openForReadingIfPresent(file) else { return nil }
    defer { descriptor.close() }
    let bytes: [UInt8]?
    do {
      bytes = try descriptor.readAll(limit: Self.fileSizeLimit)
    } catch {
      throw .unreadable(path: file, errno: error.code)
    }
    guard let bytes else { throw .tooLarge(path: file, limit: Self.fileSizeLimit) }
    return bytes
  }

  /// Replaces `file` with `bytes`: a temporary file beside it, fsync, rename, fsync of the
  /// directory. A crash leaves the old content or the new, never a mix. Callers hold the
  /// account's lock, so one temporary name per file is enough.
  func replace(_ file: String, with bytes: [UInt8]) throws(FileError) {
    try replaceDurably(file, with: bytes)
  }

  /// Removes `file` for good (a crash afterwards does not bring it back).
  func remove(_ file: String) throws(FileError) {
    guard unlink(file) == 0 || errno == ENOENT else { throw .unwritable(path: file, errno: errno) }
    syncDirectory(of: file)
  }

  /// The record files in the directory.
  func recordFiles() throws(FileError) -> [String] {
    guard let names = directoryEntryNames(path) else {
      if errno == ENOENT { return [] }
      throw .unreadable(path: path, errno: errno)
    }
    return names.filter { $0.hasSuffix(".lease") }.sorted().map { path + "/" + $0 }
  }

  /// A file in the directory must be a regular file of the user's, writable by nobody else.
  private func check(_ descriptor: FileDescriptor, _ file: String) throws(FileError) {
    let status: stat
    do {
      status = try descriptor.status()
    } catch {
      throw .unreadable(path: file, errno: error.code)
    }
    if status.st_mode & S_IFMT != S_IFREG { throw refusedFile(file, "it is not a regular file") }
    if status.st_uid != userID { throw refusedFile(file, "it is owned by uid \(status.st_uid), not by you") }
    if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
      throw refusedFile(file, "it is writable by group or others (mode \(octalMode(status.st_mode)))")
    }
  }

  private func refusedFile(_ file: String, _ reason: String) -> FileError {
    .refused(path: file, reason: reason, fix: "remove it if no lease is in use: accounts writes its own")
  }
}
