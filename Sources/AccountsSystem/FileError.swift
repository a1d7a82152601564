import Glibc

/// Problems with the index or the configuration file. Exit status 1; the file is never
/// overwritten when it cannot be read or understood.
public enum FileError: UserFacingError, Equatable {
  case unreadable(path: String, errno: Int32)
  case unwritable(path: String, errno: Int32)
  case busy(lockPath: String, seconds: Int)
  case malformed(path: String, detail: String, backup: String?)
  case newerFormat(path: String, version: Int64)
  /// Not read: not a regular file, written by someone else, or a link to nothing.
  case refused(path: String, reason: String, fix: String)
  case tooLarge(path: String, limit: Int)
  /// The new version would be more than a later read accepts; the old one is kept.
  case tooLargeToWrite(path: String, limit: Int)

  public var status: ExitStatus { .failure }

  public var message: String {
    switch self {
    case .unreadable(let path, let code): "cannot read \(path): \(describeErrno(code))"
    case .unwritable(let path, let code): "cannot write \(path): \(describeErrno(code))"
    case .busy(let lockPath, let seconds):
      "another accounts process has held \(lockPath) for \(seconds) s"
    case .malformed(let path, let detail, _): "\(path) is malformed: \(detail)"
    case .newerFormat(let path, let version):
      "\(path) has format version \(version), newer than this accounts understands"
    case .refused(let path, let reason, _): "refusing to use \(path): \(reason)"
    case .tooLarge(let path, let limit):
      "refusing to read \(path): it is larger than \(limit >> 20) MiB, the most accounts reads"
    case .tooLargeToWrite(let path, let limit):
      "refusing to write \(path): the new version would be larger than \(limit >> 20) MiB, the most accounts reads; the old version is kept"
    }
  }

  public var fix: String? {
    switch self {
    case .unreadable(let path, let code), .unwritable(let path, let code):
      Self.fix(errno: code, path: path)
    case .busy: "wait for it to finish, or end it if it hangs"
    case .malformed(_, _, let backup?):
      "fix it by hand, or restore the previous version saved at \(backup)"
    case .malformed(let path, _, nil): "fix it by hand, or move it away to start with an empty one (\(path))"
    case .newerFormat: "upgrade accounts"
    case .refused(_, _, let fix): fix
    case .tooLarge: "move it away: it is not an accounts file"
    case .tooLargeToWrite: "remove what accounts does not use from it (members it does not know are kept as they are)"
    }
  }

  /// What to do about an errno from reading or writing `path`.
  static func fix(errno code: Int32, path: String) -> String {
    switch code {
    case ENOSPC: "free some space on the file system that holds \(parentDirectory(of: path))"
    case EDQUOT: "your disk quota is used up; free some space"
    case EROFS: "the file system that holds \(parentDirectory(of: path)) is mounted read-only"
    case EACCES, EPERM: "check the owner and permissions of \(path) and its directory"
    case EIO: "the disk reported an error; check it (dmesg)"
    case ENOTDIR, ELOOP: "a part of the path is not a directory; check \(parentDirectory(of: path))"
    default: "check \(path) and its directory"
    }
  }
}

/// The first half of every atomic replacement (the index, config.json, lease records): `bytes`
/// in a new file `temporary` (0600, never through a link; a stale one from a writer that was
/// killed is removed first), on the disk before this returns. The caller renames it into place;
/// on a failure it is gone and the error names `path`, the file being replaced.
public func writeDurably(_ bytes: [UInt8], to temporary: String, reportingAs path: String) throws(FileError) {
  unlink(temporary)
  let descriptor: FileDescriptor
  do {
    descriptor = try .open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
  } catch {
    throw .unwritable(path: temporary, errno: error.code)
  }
  do {
    try descriptor.writeAll(bytes)
    try descriptor.sync()
    descriptor.close()
  } catch {
    descriptor.close()
    unlink(temporary)
    throw .unwritable(path: path, errno: error.code)
  }
}

/// Replaces `path` with `bytes` atomically: `writeDurably` to `temporary` (by default `path`
/// + ".tmp"), then a rename over it, then (with `syncingDirectory`) an fsync of the directory so
/// that a crash cannot bring the old entry back. A crash leaves the old content or the new,
/// never a mix; on a failure the temporary file is gone and the error names `reportingAs`.
/// `beforeRename` runs between the two (DocumentFile keeps its backup there).
public func replaceDurably(
  _ path: String, with bytes: [UInt8], temporary: String? = nil, reportingAs reported: String? = nil,
  syncingDirectory: Bool = true, beforeRename: () -> Void = {}
) throws(FileError) {
  let temporary = temporary ?? path + ".tmp"
  try writeDurably(bytes, to: temporary, reportingAs: reported ?? path)
  beforeRename()
  guard rename(temporary, path) == 0 else {
    let code = errno
    unlink(temporary)
    throw .unwritable(path: reported ?? path, errno: code)
  }
  if syncingDirectory { syncDirectory(of: path) }
}

/// Makes a rename in `path`'s directory durable: without it a crash can bring back the old
/// directory entry.
public func syncDirectory(of path: String) {
  guard let directory = try? FileDescriptor.open(parentDirectory(of: path), O_RDONLY | O_DIRECTORY) else { return }
  try? directory.sync()
  directory.close()
}
