import AccountsCore
import Glibc

/// Where this process is, as the directory rules need it (SPEC §3: the longest rule that
/// contains the physical current directory).
public enum WorkingDirectory: Equatable {
  /// The physical path, symlinks resolved (getcwd).
  case present(String)
  /// Deleted after the process entered it (getcwd fails with ENOENT). `formerPath` is where it
  /// was: the kernel's record of it (/proc/self/cwd, physical like a rule), else `$PWD` when it
  /// is an absolute, normalised path; nil when neither tells.
  case deleted(formerPath: String?)
  /// It exists but cannot be named: a directory above it is unreadable, or its path is not
  /// UTF-8 text.
  case unnamed

  /// The physical path while the directory exists.
  public var path: String? {
    if case .present(let path) = self { return path }
    return nil
  }

  /// The path the rules are matched against: the directory's, or the one it had.
  public var rulePath: String? {
    switch self {
    case .present(let path): path
    case .deleted(let formerPath): formerPath
    case .unnamed: nil
    }
  }

  /// This process's working directory; `pwd` is `$PWD`, used only when the kernel's record of a
  /// deleted directory cannot be read.
  public static func current(pwd: String?) -> WorkingDirectory {
    if let pointer = getcwd(nil, 0) {
      defer { free(pointer) }
      return utf8Text(UnsafeRawPointer(pointer), count: strlen(pointer)).map(WorkingDirectory.present) ?? .unnamed
    }
    guard errno == ENOENT else { return .unnamed }
    return .deleted(formerPath: formerPath(kernelRecord: kernelRecord(), pwd: pwd))
  }

  /// Where a deleted working directory was: the kernel's record ("PATH (deleted)") when it
  /// reads as one, else `pwd` when it is an absolute, normalised path, else nil.
  public static func formerPath(kernelRecord: String?, pwd: String?) -> String? {
    let marker = " (deleted)"
    if let record = kernelRecord, record.hasPrefix("/"), record.hasSuffix(marker) {
      let path = String(record.dropLast(marker.count))
      if DirectoryRule.directoryProblem(path) == nil { return path }
    }
    if let pwd, DirectoryRule.directoryProblem(pwd) == nil { return pwd }
    return nil
  }

  /// The target of /proc/self/cwd, nil when it cannot be read (no /proc) or is not UTF-8 text.
  private static func kernelRecord() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 16)
    let count = readlink("/proc/self/cwd", &buffer, buffer.count)
    guard count > 0, count < buffer.count else { return nil }
    return buffer.withUnsafeBytes { utf8Text($0.baseAddress!, count: count) }
  }

  private static func utf8Text(_ start: UnsafeRawPointer, count: Int) -> String? {
    let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
    return String(validating: bytes, as: UTF8.self)
  }
}
