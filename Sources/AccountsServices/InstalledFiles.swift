import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc

/// The files installed beside the executable, found from /proc/self/exe only (never from the
/// environment, which another user of a shared shell could set).
public enum InstalledFiles {
  /// Why a library is not there or does not fit, and its one fix: nil when a library it needs
  /// is missing (the caller names that one: libsecret for the Secret Service).
  public struct Missing: Error {
    public let text: String
    public var fix: String? = InstalledFiles.reinstall
  }

  /// The fix of a library that is not there or not ours to load as it is: the way this copy
  /// was installed, the Debian package or `make install`.
  public static let reinstall = reinstallAdvice(executableDirectory: executableDirectory())

  /// The file the Debian package puts in its library directory (scripts/deb) to say it
  /// installed this copy; `make install` puts none.
  static let packageMarker = "../lib/accounts/debian-package"

  /// The package's advice when the package's marker is beside the executable, else the
  /// source tree's.
  static func reinstallAdvice(executableDirectory: String?) -> String {
    if let executableDirectory, access("\(executableDirectory)/\(packageMarker)", F_OK) == 0 {
      return "reinstall the package: `sudo apt install --reinstall ./accounts_VERSION_ARCH.deb` with the file it came "
        + "from, or `sudo apt install --reinstall accounts` from a repository that has it"
    }
    return "reinstall accounts (`make install` in its source tree)"
  }

  /// The directory of the running executable.
  public static func executableDirectory() -> String? {
    guard let executable = realpath("/proc/self/exe", nil) else { return nil }
    defer { free(executable) }
    return String(cString: executable).split(separator: "/", omittingEmptySubsequences: false)
      .dropLast().joined(separator: "/")
  }

  /// A library beside the executable (the build directory), else in ../lib/accounts.
  public static func library(_ fileName: String) -> Result<String, Missing> {
    guard let directory = executableDirectory() else {
      return .failure(Missing(text: "cannot resolve /proc/self/exe", fix: "run accounts from a path of its own"))
    }
    let candidates = ["\(directory)/\(fileName)", "\(directory)/../lib/accounts/\(fileName)"]
    for candidate in candidates where access(candidate, R_OK) == 0 { return .success(candidate) }
    return .failure(Missing(
      text: "\(fileName) is in neither \(directory) nor \(directory)/../lib/accounts",
      fix: "\(reinstall), or run it from its build directory"))
  }

  /// accounts' own libraries, and the exit status when one is refused: without the private
  /// library no secret can be read (nor an adapter loaded).
  public static let libraries: [(fileName: String, status: ExitStatus)] = [
    (PrivateLibrary.fileName, .secretStoreUnavailable)
  ]

  /// The library `fileName`, found and checked by the rules adapters pass (SafePath, then the
  /// file rule): code that runs with the user's keyring must not come from a place, or a
  /// file, anyone else can change. The resolved path, or why it is refused.
  public static func checkedLibrary(_ fileName: String) -> Result<String, Missing> {
    let path: String
    switch library(fileName) {
    case .success(let found): path = found
    case .failure(let missing): return .failure(missing)
    }
    switch check(path) {
    case .success(let target): return .success(target)
    case .failure(let refusal):
      // A refusal without a fix of its own is the file's content: a new copy mends it.
      let fix = refusal.fix.map { "run: \($0)" } ?? reinstall
      return .failure(Missing(text: "refusing to load \(path): \(refusal.problem)", fix: fix))
    }
  }

  /// `path` resolved name by name and checked as a file accounts loads, ELF headers included
  /// (`LoadableFile`, as adapters are: a truncated library would crash dlopen with SIGBUS);
  /// the resolved path.
  public static func check(_ path: String) -> Result<String, Refusal> {
    let trust = SafePath()
    switch trust.resolve(path) {
    case .failure(let refusal): return .failure(refusal)
    case .success(let target):
      if let refusal = trust.fileProblem(target.status, path: target.path) { return .failure(refusal) }
      switch LoadableFile.open(target.path) {
      case .failure(let refusal): return .failure(Refusal("truncated or malformed (\(refusal.reason))"))
      case .success(let file):
        file.descriptor.close()
        return .success(file.path)
      }
    }
  }

  /// Where the built-in adapters are: PREFIX/lib/accounts/adapters when installed, else the
  /// build directory, where only the built-in names count (it holds other libraries too).
  public static func builtInAdapters() -> AdapterSearchPath.Directory? {
    guard let directory = executableDirectory() else { return nil }
    if let installed = realpath("\(directory)/../lib/accounts/adapters", nil) {
      defer { free(installed) }
      return AdapterSearchPath.Directory(path: String(cString: installed))
    }
    return AdapterSearchPath.Directory(path: directory, onlyNames: AdapterSearchPath.builtInNames)
  }
}
