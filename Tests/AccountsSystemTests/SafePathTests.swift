import AccountsSystem
import Foundation
import Testing

/// SafePath follows a path one name at a time and checks every directory a name is looked up
/// in, the directory a link lives in included.
@Suite struct SafePathTests {
  let root: String

  init() throws {
    var template = Array("/tmp/accounts-safepath-XXXXXX".utf8CString)
    root = String(cString: try #require(mkdtemp(&template)))
    chmod(root, 0o755)
  }

  func directory(_ name: String, mode: mode_t = 0o755) throws -> String {
    let path = root + "/" + name
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    chmod(path, mode)
    return path
  }

  func file(_ path: String) throws -> String {
    try "x".write(toFile: path, atomically: false, encoding: .utf8)
    chmod(path, 0o644)
    return path
  }

  func link(_ path: String, to target: String) throws {
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
  }

  func resolved(_ path: String) -> String {
    switch SafePath().resolve(path) {
    case .success(let target): target.path
    case .failure(let refusal): "refused: " + refusal.reason
    }
  }

  @Test func linksDotsAndDotDotsResolveToTheRealPath() throws {
    let real = try file(try directory("a/b") + "/file.so")
    try link(root + "/a/relative.so", to: "b/file.so")
    try link(root + "/a/up", to: "../a/b")
    try link(root + "/absolute.so", to: real)
    #expect(resolved(root + "/a/relative.so") == real)
    #expect(resolved(root + "/a/up/./file.so") == real)
    #expect(resolved(root + "/a/up/../b//file.so") == real)
    #expect(resolved(root + "/absolute.so") == real)
  }

  @Test func aLinkIsCheckedWhereItLivesNotOnlyWhereItLeads() throws {
    let real = try file(try directory("safe") + "/file.so")
    let open = try directory("open", mode: 0o777)
    try link(open + "/file.so", to: real)
    #expect(resolved(open + "/file.so") == "refused: directory \(open) is writable by group or others (mode 0777); run: chmod go-w \(open)")
    // A safe link into a world-writable directory is refused there.
    let target = try file(open + "/target.so")
    try link(root + "/safe/into-open.so", to: target)
    #expect(resolved(root + "/safe/into-open.so").hasPrefix("refused: directory \(open) is writable"))
  }

  @Test func loopsRelativePathsAndFilesUsedAsDirectoriesAreRefused() throws {
    try link(root + "/one", to: "two")
    try link(root + "/two", to: "one")
    #expect(resolved(root + "/one") == "refused: more than 40 symbolic links in \(root)/one")
    #expect(resolved("relative/path.so") == "refused: relative/path.so is not an absolute path")
    let plain = try file(root + "/plain")
    #expect(resolved(plain + "/x.so") == "refused: cannot resolve \(plain)/x.so: \(plain) is not a directory")
    #expect(resolved(root + "/missing.so") == "refused: cannot resolve \(root)/missing.so: No such file or directory")
  }

  @Test func aSearchDirectoryMustBeSafeOrImpossibleForOthersToCreate() throws {
    let safe = try directory("lib")
    let open = try directory("open", mode: 0o777)
    #expect(SafePath().checkSearchDirectory(safe) == nil)
    #expect(SafePath().checkSearchDirectory(open)?.reason == "directory \(open) is writable by group or others (mode 0777); run: chmod go-w \(open)")
    #expect(SafePath().checkSearchDirectory(root + "/not/yet") == nil, "only root or you can create it")
    // A directory the loader searches must be writable by nobody else, sticky or not: in
    // root's sticky /tmp anyone may add a library name.
    #expect(SafePath().checkSearchDirectory("/tmp")?.reason == "directory /tmp is writable by others (mode 1777): anyone may add a library to it; use a directory only you or root can write")
    #expect(SafePath().checkSearchDirectory("/tmp/") != nil)
    #expect(SafePath().checkSearchDirectory(safe + "/../../../tmp") != nil, "the last directory counts however it is reached")
    // /tmp is root's sticky directory: a missing name in it is anyone's to create.
    let missing = "/tmp/accounts-safepath-missing-\(UUID().uuidString)"
    #expect(SafePath().checkSearchDirectory(missing + "/lib")?.reason == "\(missing) does not exist, and anyone may create it in the sticky directory /tmp")
    #expect(SafePath().checkSearchDirectory(open + "/missing")?.reason.hasPrefix("directory \(open) is writable") == true)
  }

  @Test(.enabled(if: getuid() == 0, "needs root to give entries away (CI runs as root)"))
  func inARootStickyDirectoryOnlyTrustedEntriesAreFollowed() throws {
    let sticky = try directory("sticky", mode: 0o1777)
    let real = try file(try directory("safe") + "/file.so")
    try link(sticky + "/theirs.so", to: real)
    try #require(lchown(sticky + "/theirs.so", 65534, 65534) == 0)
    #expect(resolved(sticky + "/theirs.so") == "refused: symbolic link \(sticky)/theirs.so is owned by uid 65534, not by you or root, in the sticky directory \(sticky)")
    let theirs = try directory("sticky/theirs")
    try #require(chown(theirs, 65534, 65534) == 0)
    #expect(resolved(theirs + "/x.so").hasPrefix("refused: directory \(theirs) is owned by uid 65534"))
    try link(sticky + "/mine.so", to: real)
    #expect(resolved(sticky + "/mine.so") == real)
  }

  /// The commands a refusal suggests name the path as one shell word: a path with a space
  /// would otherwise change other files.
  @Test func suggestedCommandsQuoteThePath() throws {
    let open = try directory("a b", mode: 0o777)
    #expect(SafePath().checkSearchDirectory(open)?.fix == "chmod go-w '\(open)'")
    let quote = try directory("it's", mode: 0o777)
    #expect(SafePath().checkSearchDirectory(quote)?.fix == "chmod go-w '\(root)/it'\\''s'")
    let plain = try file(root + "/plain-file_1.so")
    chmod(plain, 0o666)
    var status = stat()
    try #require(stat(plain, &status) == 0)
    #expect(SafePath().fileProblem(status, path: plain)?.fix == "chmod go-w \(plain)", "nothing to quote")
    #expect(shellWord("") == "''" && shellWord("$(id)") == "'$(id)'" && shellWord("~x") == "'~x'")
  }

  /// A file name that is not UTF-8 is shown with its bytes as \xNN, not as U+FFFD (which
  /// would name a file that does not exist).
  @Test func fileNamesThatAreNotUTF8ShowTheirBytes() {
    #expect(fileNameText([0x61, 0xFF, 0x62, 0xC3]) == "a\\xffb\\xc3")
    #expect(fileNameText(Array("é.so".utf8)) == "é.so")
  }
}
