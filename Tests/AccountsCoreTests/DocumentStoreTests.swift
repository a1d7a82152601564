@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Foundation
import TestDoubles
import Testing

/// What the document stores (the index, config.json) refuse to read and write, as their
/// `DocumentFile` checks it, and how they write through a symbolic link.
@Suite struct DocumentStoreTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)

  func refusal(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as FileError {
      return error.message + "; " + (error.fix ?? "")
    } catch {
      return "\(error)"
    }
  }

  func prepare(_ tree: TemporaryTree) throws {
    try FileManager.default.createDirectory(atPath: tree.paths.stateDirectory, withIntermediateDirectories: true)
    chmod(tree.paths.stateDirectory, 0o700)
  }

  @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
    let tree = try TemporaryTree()
    try prepare(tree)
    #expect(mkfifo(tree.paths.index, 0o600) == 0)
    let started = Date()
    let message = refusal { _ = try IndexStore(paths: tree.paths).load() }
    #expect(message == "refusing to use \(tree.paths.index): not a regular file (a FIFO); check who changed it, then run: mv \(tree.paths.index) \(tree.paths.index).moved")
    #expect(Date().timeIntervalSince(started) < 2)
    #expect(refusal { try IndexStore(paths: tree.paths).update { _ in } } != nil, "nor written")
  }

  @Test func aLinkToADeviceIsRefusedNotReadForEver() throws {
    let tree = try TemporaryTree()
    try prepare(tree)
    #expect(symlink("/dev/zero", tree.paths.index) == 0)
    #expect(refusal { _ = try IndexStore(paths: tree.paths).load() }?.contains("not a regular file (a character device)") == true)
  }

  @Test func filesOthersCanWriteAreRefused() throws {
    let tree = try TemporaryTree()
    try prepare(tree)
    try IndexStore(paths: tree.paths).update { try $0.add(Account(id: AccountID(user: "a", backend: "b"), addedAt: now)) }
    chmod(tree.paths.index, 0o620)
    #expect(refusal { _ = try IndexStore(paths: tree.paths).load() } == "refusing to use \(tree.paths.index): writable by group or others (mode 0620); check who changed it, then run: chmod go-w \(tree.paths.index)")
    chmod(tree.paths.index, 0o600)
    chmod(tree.paths.stateDirectory, 0o777)
    #expect(refusal { _ = try IndexStore(paths: tree.paths).load() } == "refusing to use \(tree.paths.index): directory \(tree.paths.stateDirectory) is writable by group or others (mode 0777); check who changed it, then run: chmod go-w \(tree.paths.stateDirectory)")
    chmod(tree.paths.stateDirectory, 0o700)
    #expect(refusal { _ = try IndexStore(paths: tree.paths).load() } == nil)
  }

  @Test(.enabled(if: getuid() == 0, "gives a file to another user")) func filesOfAnotherUserAreRefused() throws {
    let tree = try TemporaryTree()
    try prepare(tree)
    try IndexStore(paths: tree.paths).update { try $0.add(Account(id: AccountID(user: "a", backend: "b"), addedAt: now)) }
    #expect(chown(tree.paths.index, 65534, 65534) == 0)
    #expect(refusal { _ = try IndexStore(paths: tree.paths).load() }?.hasPrefix("refusing to use \(tree.paths.index): owned by uid 65534, not by you (uid 0) or root") == true)
    #expect(chown(tree.paths.index, 0, 0) == 0)
    #expect(chown(tree.paths.stateDirectory, 65534, 65534) == 0)
    #expect(refusal { _ = try IndexStore(paths: tree.paths).load() }?.contains("owned by uid 65534, not by you or root") == true)
  }

  @Test func aSymlinkedConfigIsWrittenThroughAndKeepsWhatItDoesNotKnow() throws {
    let tree = try TemporaryTree()
    let dotfiles = tree.root + "/dotfiles"
    try FileManager.default.createDirectory(atPath: dotfiles, withIntermediateDirectories: true)
    chmod(dotfiles, 0o700)
    let target = dotfiles + "/accounts-config.json"
    try """
      {"version": 1, "theme": {"colour": "green"}, "backends": {
        "corp": {"adapter": "plain", "settings": {"base_url": "https://x"}, "secret_settings": [], "note": "mine"}}}
      """.write(toFile: target, atomically: false, encoding: .utf8)
    chmod(target, 0o600)
    try FileManager.default.createDirectory(atPath: tree.paths.configDirectory, withIntermediateDirectories: true)
    #expect(symlink(target, tree.paths.config) == 0)
    try ConfigStore(paths: tree.paths).update { try $0.add(BackendConfig(name: "test", adapter: "hmac")) }
    var status = stat()
    #expect(lstat(tree.paths.config, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
    let written = try String(contentsOfFile: target, encoding: .utf8)
    #expect(written.contains("\"test\""), "written through the link")
    #expect(written.contains("\"theme\": {\n    \"colour\": \"green\"\n  }"), "unknown top-level keys are kept: \(written)")
    #expect(written.contains("\"note\": \"mine\""), "unknown backend keys are kept")
    #expect(FileManager.default.fileExists(atPath: target + ".bak"))
  }

  @Test func aLinkToNothingIsRefusedClearly() throws {
    let tree = try TemporaryTree()
    try FileManager.default.createDirectory(atPath: tree.paths.configDirectory, withIntermediateDirectories: true)
    #expect(symlink(tree.root + "/nowhere.json", tree.paths.config) == 0)
    #expect(refusal { _ = try ConfigStore(paths: tree.paths).load() } == "refusing to use \(tree.paths.config): a symbolic link to \(tree.root)/nowhere.json, which does not exist; create the file it points to, or remove the link")
    #expect(refusal { try ConfigStore(paths: tree.paths).update { try $0.add(BackendConfig(name: "x", adapter: "plain")) } } != nil)
  }

  @Test func unknownIndexMembersSurviveAWrite() throws {
    let tree = try TemporaryTree()
    try prepare(tree)
    try """
      {"version": 1, "auto_login": null, "previous_auto_login": null, "sync": {"peer": "laptop"},
       "accounts": [{"user": "a", "backend": "b", "remembered": false, "added_at": "2026-11-22T07:00:00Z",
         "last_login": null, "token": {"expires_at": null, "kind": "bearer"}, "session": {}, "colour": "red"}]}
      """.write(toFile: tree.paths.index, atomically: false, encoding: .utf8)
    chmod(tree.paths.index, 0o600)
    try IndexStore(paths: tree.paths).update { try $0.add(Account(id: AccountID(user: "c", backend: "b"), addedAt: now)) }
    let written = try String(contentsOfFile: tree.paths.index, encoding: .utf8)
    #expect(written.contains("\"sync\": {\n    \"peer\": \"laptop\"\n  }"), "\(written)")
    #expect(written.contains("\"colour\": \"red\""))
    #expect(written.contains("\"kind\": \"bearer\""))
    #expect(try IndexStore(paths: tree.paths).load().accounts.count == 2)
  }

  @Test func namesAreCheckedWhenTheIndexIsRead() throws {
    let tree = try TemporaryTree()
    try prepare(tree)
    for (user, problem) in [("x$(id>f)", "contains '$'"), ("bad\u{1B}[31m", "the invisible character U+001B"), ("ev\u{202E}il", "U+202E")] {
      let text = """
        {"version": 1, "accounts": [{"user": "\(user.unicodeScalars.map { $0.value < 0x20 ? String(format: "\\u%04x", $0.value) : String($0) }.joined())", "backend": "b", "remembered": false, "added_at": "2026-11-22T07:00:00Z"}]}
        """
      try text.write(toFile: tree.paths.index, atomically: false, encoding: .utf8)
      chmod(tree.paths.index, 0o600)
      let message = refusal { _ = try IndexStore(paths: tree.paths).load() }
      #expect(message?.contains("accounts[0].user: ") == true && message?.contains(problem) == true, "\(String(describing: message))")
      #expect(message.map { !$0.unicodeScalars.contains { Names.isUnsafeForTerminal($0) } } == true, "the message itself is safe to print")
    }
  }

  /// A write never produces what a later read refuses: the old version stays.
  @Test func aWriteLargerThanAReadAcceptsIsRefused() throws {
    let tree = try TemporaryTree()
    let store = IndexStore(paths: tree.paths)
    try store.update { try $0.add(Account(id: AccountID(user: "a", backend: "b"), addedAt: now)) }
    let before = try String(contentsOfFile: tree.paths.index, encoding: .utf8)
    #expect(refusal {
      try store.file.update { _ in (bytes: [UInt8](repeating: 0x20, count: DocumentFile.sizeLimit + 1), result: ()) }
    }?.hasPrefix("refusing to write \(tree.paths.index): the new version would be larger than 16 MiB") == true)
    try store.file.update { _ in (bytes: Array(before.utf8) + [UInt8](repeating: 0x20, count: DocumentFile.sizeLimit - before.utf8.count), result: ()) }
    #expect(try store.load().accounts.count == 1, "exactly the limit is written and read back")
  }

  /// A symbolic link on the way that anyone could re-point is refused, wherever it leads; so is
  /// a state directory others can write to, though the files in it are the user's.
  @Test func linksAndDirectoriesOthersCanChangeAreRefused() throws {
    let tree = try TemporaryTree()
    let open = tree.root + "/open"
    let safe = tree.root + "/safe"
    for directory in [open, safe, tree.paths.configDirectory] {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    chmod(open, 0o777)
    chmod(safe, 0o700)
    try #"{"version": 1, "backends": {}}"#.write(toFile: safe + "/config.json", atomically: false, encoding: .utf8)
    chmod(safe + "/config.json", 0o600)
    #expect(symlink(safe + "/config.json", open + "/hop") == 0)
    #expect(symlink(open + "/hop", tree.paths.config) == 0)
    #expect(refusal { _ = try ConfigStore(paths: tree.paths).load() } == "refusing to use \(tree.paths.config): directory \(open) is writable by group or others (mode 0777); check who changed it, then run: chmod go-w \(open)")
    #expect(refusal { try ConfigStore(paths: tree.paths).update { try $0.add(BackendConfig(name: "x", adapter: "plain")) } } != nil)
    #expect(try String(contentsOfFile: safe + "/config.json", encoding: .utf8) == #"{"version": 1, "backends": {}}"#)

    try FileManager.default.createDirectory(atPath: tree.paths.stateDirectory, withIntermediateDirectories: true)
    try IndexStore(paths: tree.paths).update { try $0.add(Account(id: AccountID(user: "a", backend: "b"), addedAt: now)) }
    chmod(tree.root + "/state", 0o777)  // $XDG_STATE_HOME itself
    #expect(refusal { _ = try IndexStore(paths: tree.paths).load() }?.contains("directory \(tree.root)/state is writable by group or others") == true)
  }
}
