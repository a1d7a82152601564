import Glibc

/// A file accounts would load with `dlopen` (an adapter, one of its libraries, or accounts'
/// private library), open and checked as far as its metadata and ELF headers go: reached name
/// by name through directories only root or the user can change (SafePath), a regular file of
/// theirs no one else may write, an ELF shared object for this machine whose loaded segments
/// all lie in the file. The adapter host checks its linking next (AdapterFileCheck); completion
/// stops here, to offer only adapters that load without loading one. The caller closes the
/// descriptor.
public struct LoadableFile {
  public let descriptor: FileDescriptor
  /// The path with every link resolved: the file `dlopen` is given, and whose directory
  /// `$ORIGIN` stands for.
  public let path: String
  public let elf: ELFFile


  /// Resolves `path` name by name (SafePath), opens the file it leads to, and checks it and its
  /// ELF header; the reason when refused.
  public static func open(_ path: String, userID: uid_t = getuid()) -> Result<LoadableFile, Refusal> {
    let target: SafePath.Target
    let trust = SafePath(userID: userID)
    switch trust.resolve(path) {
    case .success(let found): target = found
    case .failure(let refusal): return .failure(refusal)
    }
    // Refused before it is opened: opening a FIFO or a device can block or have effects.
    if let refusal = trust.fileProblem(target.status, path: target.path) { return .failure(refusal) }
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(target.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    } catch {
      return .failure(Refusal("cannot open \(target.path): \(error)"))
    }
    do throws(Refusal) {
      let status: stat
      do {
        status = try descriptor.status()
      } catch {
        throw Refusal("cannot stat \(target.path): \(error)")
      }
      guard status.st_dev == target.status.st_dev, status.st_ino == target.status.st_ino else {
        throw Refusal("\(target.path) was replaced while it was being checked")
      }
      if let refusal = trust.fileProblem(status, path: target.path) { throw refusal }
      let elf = try ELFFile(descriptor, size: Int(status.st_size))
      if let refusal = elf.hostProblem() { throw refusal }
      try elf.checkLoadedSegments()
      return .success(LoadableFile(descriptor: descriptor, path: target.path, elf: elf))
    } catch {
      descriptor.close()
      return .failure(error)
    }
  }
}
