import AccountsContract

/// "Inside DIR (and below), commands use ACCOUNT" (SPEC §3). Rules live only in the user's own
/// config.json, which is owner- and mode-checked: nothing inside a directory or a repository
/// can pick an account (a cloned repository is not trusted), so no per-directory file is read.
public struct DirectoryRule: Sendable, Equatable {
  /// A physical absolute path (symlinks resolved when the rule was added), without a trailing
  /// slash except for "/" itself.
  public let directory: String
  /// Stored whole, as USER@BACKEND: a prefix that is unique today may not be tomorrow. The
  /// account may have been removed since; resolving the rule then says so.
  public let account: AccountID

  public init(directory: String, account: AccountID) {
    self.directory = directory
    self.account = account
  }

  /// Whether `path` (a physical absolute path) is `directory` or lies below it, component by
  /// component: /work/corp contains /work/corp/api but not /work/corporate.
  public func contains(_ path: String) -> Bool {
    if directory == "/" { return path.hasPrefix("/") }
    guard path.utf8.starts(with: directory.utf8) else { return false }
    let rest = path.utf8.dropFirst(directory.utf8.count)
    return rest.isEmpty || rest.first == 0x2F
  }

  /// The rule that decides for `path`: the longest directory that contains it. Directories are
  /// unique, so two containing rules differ in length and the longest is one rule.
  public static func deciding(_ rules: [DirectoryRule], for path: String) -> DirectoryRule? {
    var best: DirectoryRule?
    for rule in rules where rule.contains(path) {
      if best.map({ rule.directory.utf8.count > $0.directory.utf8.count }) ?? true { best = rule }
    }
    return best
  }

  /// Longest directory first (the order `accounts rules` shows and matching prefers), then by
  /// name, so the listing is stable.
  public static func ordered(_ rules: [DirectoryRule]) -> [DirectoryRule] {
    rules.sorted {
      let (left, right) = ($0.directory.utf8.count, $1.directory.utf8.count)
      return left != right ? left > right : $0.directory < $1.directory
    }
  }

  /// Why `path` cannot be a rule's directory, or nil: it must be absolute, normalised (no
  /// empty, "." or ".." components, no trailing slash) and hold no character a terminal or a
  /// prompt would act on (a newline would split `accounts rules` into two lines).
  public static func directoryProblem(_ path: String) -> String? {
    guard path.hasPrefix("/") else { return "not an absolute path" }
    if let bad = path.unicodeScalars.first(where: Names.isUnsafeForTerminal) {
      let digits = String(bad.value, radix: 16, uppercase: true)
      return "contains the invisible character U+\(String(repeating: "0", count: max(0, 4 - digits.count)) + digits)"
    }
    guard path != "/" else { return nil }
    let components = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    if components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
      return "not a normalised path (an empty, '.' or '..' component, or a trailing '/')"
    }
    return nil
  }
}
