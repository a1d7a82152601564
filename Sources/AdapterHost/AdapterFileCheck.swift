import AccountsSystem
import Glibc

/// The checks an adapter file passes before `dlopen` (SPEC §5), in the spirit of OpenSSH's
/// `safe_path` and sudo's plugin checks: code that runs with the user's keyring must not be
/// replaceable by anyone else, and must not bring in code that is.
///
/// `open` makes the checks that need no more than the file's metadata and its ELF header (the
/// path, the owner and mode, the machine: `LoadableFile`, in the system module, as completion
/// makes them too, to offer only adapters that load). `checkLinking` then reads the dynamic section: every library `dlopen` would load
/// with the adapter, and every directory it would look in, must pass the same rules.
public struct AdapterFileCheck: Sendable {
  /// The user whose files are trusted besides root's.
  public var userID: uid_t

  public init(userID: uid_t = getuid()) { self.userID = userID }

  /// An open, checked adapter file (`LoadableFile`). The caller closes the descriptor.
  public typealias CheckedFile = LoadableFile

  /// Resolves `path` name by name (SafePath), opens the file it leads to, and checks it and its
  /// ELF header; the reason when refused.
  public func open(_ path: String) -> Result<CheckedFile, Refusal> {
    LoadableFile.open(path, userID: userID)
  }

  /// The libraries `dlopen` would load with the adapter: its RUNPATH and RPATH directories,
  /// and the DT_NEEDED, DT_FILTER and DT_AUXILIARY names that are paths. `asDependency`: the
  /// file is a library another one needs (libc.so.6 may be a program too).
  public func checkLinking(_ file: CheckedFile, asDependency: Bool = false) -> Refusal? {
    do throws(Refusal) {
      let dynamic = try file.elf.dynamic()
      if dynamic.isProgram, !asDependency {
        throw Refusal("a program (a position-independent executable), not a shared library; link it with -shared")
      }
      let origin = String(file.path[..<file.path.lastIndex(of: "/")!])
      let linking = LinkingCheck(files: self, origin: origin.isEmpty ? "/" : origin)
      if let runpath = dynamic.runpath { try linking.checkSearchPath(runpath, tag: "RUNPATH") }
      if let rpath = dynamic.rpath { try linking.checkSearchPath(rpath, tag: "RPATH") }
      for (tag, names) in [("DT_NEEDED", dynamic.needed), ("DT_FILTER", dynamic.filters), ("DT_AUXILIARY", dynamic.auxiliaries)] {
        for name in names { try linking.checkLibrary(name, tag: tag) }
      }
      return nil
    } catch {
      return error
    }
  }

  /// A file another file's path leads to (an absolute DT_NEEDED): the same rules as the adapter
  /// file's, without opening it.
  func checkPath(_ path: String) -> Refusal? {
    switch SafePath(userID: userID).resolve(path) {
    case .success(let target): checkFile(target.status, path: target.path)
    case .failure(let refusal): refusal
    }
  }

  /// A regular file owned by root or the user, not writable by group or others (SafePath's
  /// one rule for files accounts trusts).
  public func checkFile(_ status: stat, path: String) -> Refusal? {
    SafePath(userID: userID).fileProblem(status, path: path)
  }
}

/// Where the dynamic loader would look for an adapter's libraries, checked as it would expand
/// it (glibc's `$ORIGIN` rules; `dlopen` is given the resolved path, so `$ORIGIN` is the
/// adapter's own directory).
struct LinkingCheck {
  let files: AdapterFileCheck
  /// The directory of the adapter file.
  let origin: String

  /// A RUNPATH or RPATH: every entry absolute (after `$ORIGIN`) and safe to search. An empty
  /// entry, like a relative one, is the current directory, which anyone may have chosen.
  func checkSearchPath(_ value: String, tag: String) throws(Refusal) {
    for entry in value.split(separator: ":", omittingEmptySubsequences: false).map(String.init) {
      guard !entry.isEmpty else { throw Refusal("\(tag) has an empty entry, which means the current directory") }
      let directory = try expand(entry, tag: tag)
      guard directory.hasPrefix("/") else {
        throw Refusal("\(tag) entry '\(entry)' is relative: it names a directory under the current directory; use $ORIGIN/\(entry) or an absolute path")
      }
      if let refusal = SafePath(userID: files.userID).checkSearchDirectory(directory) {
        throw refusal.within("\(tag) entry '\(entry)': ")
      }
    }
  }

  /// A library name: a plain name is looked up in the search path (checked) and the system's
  /// directories; a name with a slash is opened as it is, so it must be absolute and pass the
  /// adapter file's own checks.
  func checkLibrary(_ name: String, tag: String) throws(Refusal) {
    let path = try expand(name, tag: tag)
    guard path.contains("/") else { return }
    guard path.hasPrefix("/") else {
      throw Refusal("\(tag) entry '\(name)' is a relative path: it would be opened from the current directory")
    }
    if let refusal = files.checkPath(path) { throw refusal.within("\(tag) entry '\(name)': ") }
  }

  /// `text` with `$ORIGIN` and `${ORIGIN}` replaced. Every other `$` is refused: `$LIB` and
  /// `$PLATFORM` depend on the loader's build and the CPU, and glibc keeps an unknown token
  /// as it is, a relative path.
  func expand(_ text: String, tag: String) throws(Refusal) -> String {
    guard text.contains("$") else { return text }
    var result = ""
    var rest = Substring(text)
    while let dollar = rest.firstIndex(of: "$") {
      result += rest[..<dollar]
      rest = rest[rest.index(after: dollar)...]
      let name: Substring
      if rest.first == "{" {
        guard let close = rest.firstIndex(of: "}") else {
          throw Refusal("\(tag) entry '\(text)' uses '${' without its '}'")
        }
        name = rest[rest.index(after: rest.startIndex)..<close]
        rest = rest[rest.index(after: close)...]
      } else {
        let end = rest.firstIndex { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) } ?? rest.endIndex
        name = rest[..<end]
        rest = rest[end...]
      }
      switch name {
      case "ORIGIN": result += origin
      case "":
        throw Refusal("\(tag) entry '\(text)' uses '$' without a name after it")
      case "LIB", "PLATFORM":
        throw Refusal("\(tag) entry '\(text)' uses $\(name), which accounts cannot check; use $ORIGIN or an absolute path")
      default:
        throw Refusal("\(tag) entry '\(text)' uses the unknown token $\(name)")
      }
    }
    return result + rest
  }
}
