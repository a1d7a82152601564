import AccountsCore
import Glibc

/// The checks an adapter file passes before `dlopen` (SPEC §5), in the spirit of OpenSSH's
/// `safe_path` and sudo's plugin checks: code that runs with the user's keyring must not be
/// replaceable by anyone else.
///
/// The file is opened once (O_NOFOLLOW on the resolved path) and checked through its
/// descriptor; `dlopen` then loads `/proc/self/fd/N`, so the file checked is the file loaded
/// even if the path is swapped in between. The directories are checked by path, from the file's
/// own directory up to `/`, after resolving symbolic links.
struct AdapterFileCheck {
  /// The user whose files are trusted besides root's.
  var userID: uid_t = getuid()

  /// An open, checked adapter file. The caller closes the descriptor when the file is refused
  /// later, and keeps it open for the life of the process once loaded: adapters are never
  /// unloaded, and glibc would take a later `/proc/self/fd/N` of the same number for the library
  /// already loaded under that name.
  struct CheckedFile {
    let descriptor: Int32
    /// The resolved path, for messages.
    let path: String

    /// What to hand `dlopen`: the descriptor's own path.
    var loadPath: String { "/proc/self/fd/\(descriptor)" }
  }

  /// Opens `path` and checks it and its directories; the reason when refused.
  func open(_ path: String) -> Result<CheckedFile, Refusal> {
    guard let resolved = realpath(path, nil) else {
      return .failure(Refusal("cannot resolve the path: \(describeErrno(errno))"))
    }
    let real = String(cString: resolved)
    free(resolved)
    let descriptor = Glibc.open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard descriptor >= 0 else { return .failure(Refusal("cannot open: \(describeErrno(errno))")) }
    var status = stat()
    let refusal =
      fstat(descriptor, &status) != 0
      ? Refusal("cannot stat: \(describeErrno(errno))")
      : checkFile(status, path: real) ?? checkDirectories(above: real) ?? checkELF(descriptor)
    if let refusal {
      close(descriptor)
      return .failure(refusal)
    }
    return .success(CheckedFile(descriptor: descriptor, path: real))
  }

  func checkFile(_ status: stat, path: String) -> Refusal? {
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

  /// Every directory from the file's own up to `/`.
  func checkDirectories(above path: String) -> Refusal? {
    var directory = path
    while directory != "/" {
      directory = parent(of: directory)
      var status = stat()
      guard stat(directory, &status) == 0 else {
        return Refusal("cannot stat directory \(directory): \(describeErrno(errno))")
      }
      if status.st_uid != 0, status.st_uid != userID {
        return Refusal("directory \(directory) is owned by uid \(status.st_uid), not by you or root")
      }
      let writableByOthers = status.st_mode & (S_IWGRP | S_IWOTH) != 0
      let rootSticky = status.st_uid == 0 && status.st_mode & S_ISVTX != 0
      if writableByOthers, !rootSticky {
        return Refusal(
          "directory \(directory) is writable by group or others (mode \(octalMode(status.st_mode)))",
          fix: "chmod go-w \(directory)")
      }
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

  private func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }
}

/// Why an adapter was not loaded: one line, with the command that fixes it when there is one.
struct Refusal: Error, Equatable {
  var reason: String

  init(_ reason: String, fix: String? = nil) {
    self.reason = fix.map { "\(reason); run: \($0)" } ?? reason
  }
}

