import Glibc

/// Problems with the index or the configuration file. Exit status 1; the file is never
/// overwritten when it cannot be read or understood.
public enum FileError: UserFacingError, Equatable {
  case unreadable(path: String, errno: Int32)
  case unwritable(path: String, errno: Int32)
  case busy(lockPath: String, seconds: Int)
  case malformed(path: String, detail: String, backup: String?)
  case newerFormat(path: String, version: Int64)

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
    }
  }

  public var fix: String? {
    switch self {
    case .unreadable, .unwritable: "check the file's and its directory's owner and permissions"
    case .busy: "wait for it to finish, or end it if it hangs"
    case .malformed(_, _, let backup?):
      "fix it by hand, or restore the previous version saved at \(backup)"
    case .malformed(let path, _, nil): "fix it by hand, or move it away to start with an empty one (\(path))"
    case .newerFormat: "upgrade accounts"
    }
  }
}

/// strerror's text for an errno value.
public func describeErrno(_ code: Int32) -> String {
  String(cString: strerror(code))
}

/// A file mode's permission bits in octal, four digits: "0644", "1777".
public func octalMode(_ mode: mode_t) -> String {
  let digits = String(mode & 0o7777, radix: 8)
  return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
