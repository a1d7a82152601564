import Glibc

/// Why a file is not loaded: one line, with the command that fixes it when there is one.
public struct Refusal: Error, Equatable, Sendable {
  public var problem: String
  public var fix: String?

  public init(_ problem: String, fix: String? = nil) {
    self.problem = problem
    self.fix = fix
  }

  /// The problem and its fix on one line: "writable by others (mode 0666); run: chmod go-w F".
  public var reason: String { fix.map { "\(problem); run: \($0)" } ?? problem }

  /// The same refusal, said of `context` (e.g. "RUNPATH entry '$ORIGIN/lib': ").
  public func within(_ context: String) -> Refusal { Refusal(context + problem, fix: fix) }
}

/// Follows a path one name at a time, as the kernel does, and refuses it when anyone but root
/// and the user could change where it leads (OpenSSH's `safe_path`, sudo's plugin checks).
///
/// Every directory a name is looked up in must be owned by root or the user and not writable
/// by group or others, except a root-owned sticky directory such as /tmp, in which the entry
/// found (a file, a directory or a symbolic link, not followed) must itself be owned by root
/// or the user. A symbolic link is checked where it lives and then followed; at most
/// `symbolicLinkLimit` are. Checking the resolved path alone is not enough: a link in a
/// world-writable directory can be pointed elsewhere by anyone.
public struct SafePath: Sendable {
  /// The user whose files are trusted besides root's.
  public var userID: uid_t

  public static let symbolicLinkLimit = 40

  public init(userID: uid_t = getuid()) { self.userID = userID }

  /// Where a path led.
  public struct Target {
    /// The path with every symbolic link, `.` and `..` resolved.
    public let path: String
    /// `lstat` of it.
    public let status: stat
  }

  /// The entry `path` leads to, which must exist.
  public func resolve(_ path: String) -> Result<Target, Refusal> {
    switch walk(path) {
    case .failure(let refusal): return .failure(refusal)
    case .success(.found(let target)): return .success(target)
    case .success(.missing(let missing)):
      return .failure(Refusal("cannot resolve \(missing): \(describeErrno(ENOENT))"))
    }
  }

  /// The entry `path` leads to, or nil when the path names nothing (yet): the directories
  /// up to the first missing name have passed, so only root or the user can create it.
  public func resolveIfPresent(_ path: String) -> Result<Target?, Refusal> {
    switch walk(path) {
    case .failure(let refusal): return .failure(refusal)
    case .success(.found(let target)): return .success(target)
    case .success(.missing): return .success(nil)
    }
  }

  /// Why a file accounts reads or loads may not be used, or nil: it must be a regular file
  /// (a FIFO would block its reader, a device read for ever), owned by root or the user, and
  /// writable by nobody else. The one rule for adapters, the index and config.json.
  public func fileProblem(_ status: stat, path: String) -> Refusal? {
    guard status.st_mode & S_IFMT == S_IFREG else {
      return Refusal("not a regular file (\(Self.fileKind(status.st_mode)))", fix: "mv \(shellWord(path)) \(shellWord(path + ".moved"))")
    }
    if !isTrusted(status.st_uid) {
      return Refusal(
        "owned by uid \(status.st_uid), not by you (uid \(userID)) or root", fix: "chown \(userID) \(shellWord(path))")
    }
    if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
      return Refusal("writable by group or others (mode \(octalMode(status.st_mode)))", fix: "chmod go-w \(shellWord(path))")
    }
    return nil
  }

  /// "a FIFO", "a directory", ...: what a file that is not a regular one is.
  static func fileKind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFIFO: "a FIFO"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFDIR: "a directory"
    case S_IFSOCK: "a socket"
    case S_IFLNK: "a symbolic link"
    default: "mode \(octalMode(mode))"
    }
  }

  /// A directory the dynamic loader will look names up in (a RUNPATH entry): nil when it is safe
  /// to search, or when it does not exist and only root or the user could create it. Unlike a
  /// directory a path merely passes through, it must be writable by nobody else even when it
  /// is root's and sticky: in /tmp anyone may add the name the loader looks for.
  public func checkSearchDirectory(_ path: String) -> Refusal? {
    switch walk(path, searching: true) {
    case .failure(let refusal): return refusal
    case .success: return nil
    }
  }

  /// Why the directory `path` with `status` may not be searched, or nil.
  public func directoryProblem(_ path: String, _ status: stat) -> Refusal? {
    if !isTrusted(status.st_uid) {
      return Refusal("directory \(path) is owned by uid \(status.st_uid), not by you or root")
    }
    if status.st_mode & (S_IWGRP | S_IWOTH) != 0, !Self.isRootSticky(status) {
      return Refusal(
        "directory \(path) is writable by group or others (mode \(octalMode(status.st_mode)))",
        fix: "chmod go-w \(shellWord(path))")
    }
    return nil
  }

  /// Why the directory `path` with `status` may not be searched for libraries, or nil: the
  /// rule of `directoryProblem` without the exception for root's sticky directories.
  func searchDirectoryProblem(_ path: String, _ status: stat) -> Refusal? {
    if Self.isRootSticky(status) {
      return Refusal(
        "directory \(path) is writable by others (mode \(octalMode(status.st_mode))): anyone may add a library to it; use a directory only you or root can write")
    }
    return directoryProblem(path, status)
  }

  /// Root or the user.
  public func isTrusted(_ owner: uid_t) -> Bool { owner == 0 || owner == userID }

  /// A directory like /tmp: root's, sticky, and writable by others, so that anyone may add a
  /// name to it, but only the owner of a name may change it.
  static func isRootSticky(_ status: stat) -> Bool {
    status.st_uid == 0 && status.st_mode & S_ISVTX != 0 && status.st_mode & (S_IWGRP | S_IWOTH) != 0
  }

  private enum Outcome {
    case found(Target)
    /// The path names nothing; this is the first name that is missing.
    case missing(String)
  }

  /// One entry on the way: a directory whose names are looked up once it is checked.
  private struct Step {
    let path: String
    let status: stat
    var checked = false
  }

  /// Resolves `path`. `searching`: the path is a directory to search, so the last directory
  /// is checked too, and a missing name is fine where only root or the user could create it.
  private func walk(_ path: String, searching: Bool = false) -> Result<Outcome, Refusal> {
    guard path.hasPrefix("/") else { return .failure(Refusal("\(path) is not an absolute path")) }
    var root = stat()
    guard lstat("/", &root) == 0 else { return .failure(Refusal("cannot stat /: \(Errno.current)")) }
    var stack = [Step(path: "/", status: root)]
    var pending = Array(Self.names(path).reversed())
    var links = 0
    while let name = pending.popLast() {
      if name.isEmpty || name == "." { continue }
      if name == ".." {
        guard stack[stack.count - 1].status.st_mode & S_IFMT == S_IFDIR else {
          return .failure(Refusal("cannot resolve \(path): \(stack[stack.count - 1].path) is not a directory"))
        }
        if stack.count > 1 { stack.removeLast() }
        continue
      }
      // Look `name` up in the directory on top, checked first.
      let directory = stack[stack.count - 1]
      guard directory.status.st_mode & S_IFMT == S_IFDIR else {
        return .failure(Refusal("cannot resolve \(path): \(directory.path) is not a directory"))
      }
      if !directory.checked {
        if let refusal = directoryProblem(directory.path, directory.status) { return .failure(refusal) }
        stack[stack.count - 1].checked = true
      }
      let candidate = directory.path == "/" ? "/" + name : directory.path + "/" + name
      var status = stat()
      guard lstat(candidate, &status) == 0 else {
        let code = errno
        guard code == ENOENT else { return .failure(Refusal("cannot resolve \(candidate): \(describeErrno(code))")) }
        if searching, Self.isRootSticky(directory.status) {
          return .failure(Refusal(
            "\(candidate) does not exist, and anyone may create it in the sticky directory \(directory.path)"))
        }
        return .success(.missing(candidate))
      }
      if Self.isRootSticky(directory.status), !isTrusted(status.st_uid) {
        return .failure(Refusal(
          "\(Self.kind(status)) \(candidate) is owned by uid \(status.st_uid), not by you or root, in the sticky directory \(directory.path)"))
      }
      guard status.st_mode & S_IFMT == S_IFLNK else {
        stack.append(Step(path: candidate, status: status))
        continue
      }
      links += 1
      guard links <= Self.symbolicLinkLimit else {
        return .failure(Refusal("more than \(Self.symbolicLinkLimit) symbolic links in \(path)"))
      }
      guard let target = Self.readLink(candidate) else {
        return .failure(Refusal("cannot read the symbolic link \(candidate): \(Errno.current)"))
      }
      if target.hasPrefix("/") { stack.removeSubrange(1...) }
      pending += Self.names(target).reversed()
    }
    // The directory searched is checked by the stricter rule even when a name was looked up
    // in it on the way (/tmp/x/..).
    let last = stack[stack.count - 1]
    if searching, last.status.st_mode & S_IFMT == S_IFDIR,
      let refusal = searchDirectoryProblem(last.path, last.status)
    {
      return .failure(refusal)
    }
    return .success(.found(Target(path: last.path, status: last.status)))
  }

  private static func names(_ path: String) -> [String] {
    path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
  }

  private static func kind(_ status: stat) -> String {
    switch status.st_mode & S_IFMT {
    case S_IFLNK: "symbolic link"
    case S_IFDIR: "directory"
    default: "file"
    }
  }

  /// The target of a symbolic link; nil when it cannot be read or is longer than PATH_MAX.
  private static func readLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count)
    guard count >= 0, count < buffer.count else { return nil }
    // A target that is not UTF-8 is shown as \xNN and then names nothing: refused, not followed
    // somewhere else.
    return fileNameText(buffer[..<count].map { UInt8(bitPattern: $0) })
  }
}
