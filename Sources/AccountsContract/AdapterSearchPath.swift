import AccountsSystem

/// Where adapters are searched, in order (SPEC §5).
public struct AdapterSearchPath: Equatable, Sendable {
  public struct Directory: Equatable, Sendable {
    public var path: String
    /// The directory the built-in adapters were built into: a build directory holds other
    /// libraries too, so only the built-in names are looked at there.
    public var onlyNames: [String]?

    public init(path: String, onlyNames: [String]? = nil) {
      self.path = path
      self.onlyNames = onlyNames
    }
  }

  /// One `.so` file in a directory of the search path.
  public struct File: Equatable, Sendable {
    public var path: String
    /// `plain` for plain.so and libplain.so.
    public var stem: String
    /// The adapter the file stands for; nil when its stem is not a valid adapter name, which
    /// no command loads, looks up or offers to a shell.
    public var name: String? { Names.isBackendName(stem) ? stem : nil }
  }

  public var directories: [Directory]

  public init(directories: [Directory]) { self.directories = directories }

  public static let builtInNames = ["hmac", "oauth2", "plain", "signed"]

  /// The problem `accounts adapters` reports for a file whose name is not an adapter name.
  public static let misnamedReason = "file name is not a valid adapter name"

  /// Every `.so` file, directory by directory, each directory sorted; nothing is opened.
  /// Missing directories are skipped.
  public func allFiles() -> [File] {
    var result: [File] = []
    for directory in directories {
      guard let names = directoryEntryNames(directory.path) else { continue }
      for fileName in names.sorted() {
        guard let stem = Self.stem(fileName: fileName) else { continue }
        if let only = directory.onlyNames, !only.contains(stem) { continue }
        let separator = directory.path.hasSuffix("/") ? "" : "/"
        result.append(File(path: directory.path + separator + fileName, stem: stem))
      }
    }
    return result
  }

  /// (name, path) of every file that stands for a valid adapter name, in search order.
  public func files() -> [(name: String, path: String)] {
    allFiles().compactMap { file in file.name.map { ($0, file.path) } }
  }

  /// Every file as `accounts adapters` lists it, without loading any: a misnamed file refused,
  /// a file hidden by an earlier one of the same name shadowed, and the rest with neither a
  /// description nor a refusal yet: the files to load.
  public func survey() -> [AdapterEntry] {
    var winners: [String: String] = [:]
    return allFiles().map { file in
      guard let name = file.name else {
        return AdapterEntry(path: file.path, name: file.stem, refusal: Self.misnamedReason)
      }
      if let winner = winners[name] { return AdapterEntry(path: file.path, name: name, shadowedBy: winner) }
      winners[name] = file.path
      return AdapterEntry(path: file.path, name: name)
    }
  }

  /// The adapter name a file stands for: `plain` for `plain.so` and `libplain.so` (the names
  /// SwiftPM and cargo give); nil for other files and for names that are not valid adapter
  /// names (`Names.isBackendName`).
  public static func adapterName(fileName: String) -> String? {
    stem(fileName: fileName).flatMap { Names.isBackendName($0) ? $0 : nil }
  }

  /// `plain` for `plain.so` and `libplain.so`, whatever the stem holds; nil when the file
  /// name does not end in `.so` or starts with a dot.
  static func stem(fileName: String) -> String? {
    guard fileName.hasSuffix(".so"), !fileName.hasPrefix(".") else { return nil }
    var stem = fileName.dropLast(3)
    if stem.hasPrefix("lib"), stem.count > 3 { stem = stem.dropFirst(3) }
    return stem.isEmpty ? nil : String(stem)
  }
}
