import Glibc

/// The checks an adapter file passes before `dlopen` (SPEC §5), in the spirit of OpenSSH's
/// `safe_path` and sudo's plugin checks: code that runs with the user's keyring must not be
/// replaceable by anyone else.
///
/// The path is followed name by name (SafePath): every directory on the way, those that
/// symbolic links live in included, is checked. The file is then opened (O_NOFOLLOW on the
/// resolved path) and checked through its descriptor; `dlopen` then loads `/proc/self/fd/N`,
/// so the file checked is the file loaded.
public struct AdapterFileCheck: Sendable {
  /// The user whose files are trusted besides root's.
  public var userID: uid_t

  public init(userID: uid_t = getuid()) { self.userID = userID }

  /// An open, checked adapter file. The caller closes the descriptor when the file is refused
  /// later, and keeps it open for the life of the process once loaded: adapters are never
  /// unloaded, and glibc would take a later `/proc/self/fd/N` of the same number for the library
  /// already loaded under that name.
  public struct CheckedFile {
    public let descriptor: Int32
    /// The resolved path, for messages.
    public let path: String

    /// What to hand `dlopen`: the descriptor's own path.
    public var loadPath: String { "/proc/self/fd/\(descriptor)" }
  }

  /// Resolves `path` name by name, opens the file it leads to, and checks it; the reason when
  /// refused.
  public func open(_ path: String) -> Result<CheckedFile, Refusal> {
    let target: SafePath.Target
    switch SafePath(userID: userID).resolve(path) {
    case .success(let found): target = found
    case .failure(let refusal): return .failure(refusal)
    }
    // Refused before it is opened: opening a FIFO or a device can block or have effects.
    if let refusal = checkFile(target.status, path: target.path) { return .failure(refusal) }
    let descriptor = Glibc.open(target.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard descriptor >= 0 else { return .failure(Refusal("cannot open: \(describeErrno(errno))")) }
    var status = stat()
    let refusal: Refusal? =
      if fstat(descriptor, &status) != 0 {
        Refusal("cannot stat: \(describeErrno(errno))")
      } else if status.st_dev != target.status.st_dev || status.st_ino != target.status.st_ino {
        Refusal("\(target.path) was replaced while it was being checked")
      } else {
        checkFile(status, path: target.path) ?? checkELF(descriptor)
      }
    if let refusal {
      close(descriptor)
      return .failure(refusal)
    }
    return .success(CheckedFile(descriptor: descriptor, path: target.path))
  }

  /// A regular file owned by root or the user, not writable by group or others.
  public func checkFile(_ status: stat, path: String) -> Refusal? {
    guard status.st_mode & S_IFMT == S_IFREG else {
      return Refusal("not a regular file")
    }
    if status.st_uid != 0, status.st_uid != userID {
      return Refusal(
        "owned by uid \(status.st_uid), not by you (uid \(userID)) or root",
        fix: "chown \(userID) \(path)")
    }
    if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
      return Refusal(
        "writable by group or others (mode \(octalMode(status.st_mode)))", fix: "chmod go-w \(path)")
    }
    return nil
  }

  /// The first four bytes are `\x7fELF`.
  func checkELF(_ descriptor: Int32) -> Refusal? {
    var magic = [UInt8](repeating: 0, count: 4)
    let count = magic.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 4, 0) }
    guard count == 4, magic == [0x7F, 0x45, 0x4C, 0x46] else {
      return Refusal("not an ELF shared library")
    }
    return nil
  }
}
