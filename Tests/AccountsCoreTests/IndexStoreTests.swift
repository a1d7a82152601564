@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Foundation
import TestDoubles
import Testing

@Suite struct IndexStoreTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)

  @Test func roundTripsEveryFieldAndKeepsFilesPrivate() throws {
    let tree = try TemporaryTree()
    let store = IndexStore(paths: tree.paths)
    #expect(try store.load() == AccountBook(), "no file yet is an empty book")
    let alice = AccountID(user: "alice@example.com", backend: "corp")
    let bob = AccountID(user: "张三", backend: "test")
    try store.update { book in
      try book.add(Account(id: alice, remembered: true, token: TokenRecord(expiresAt: now.adding(seconds: 3600)), lastLogin: now, addedAt: now, session: ["userId": "42", "region": "cn"]))
      try book.add(Account(id: bob, addedAt: now.adding(seconds: -5)))
      book.apply(Transition(slot: .take), to: bob, at: now)
      book.apply(Transition(slot: .take), to: alice, at: now)
    }
    let loaded = try store.load()
    #expect(loaded[alice] == Account(id: alice, remembered: true, token: TokenRecord(expiresAt: now.adding(seconds: 3600)), lastLogin: now, addedAt: now, session: ["userId": "42", "region": "cn"]))
    #expect(loaded[bob] == Account(id: bob, addedAt: now.adding(seconds: -5)))
    #expect(loaded.autoLogin == alice)
    #expect(loaded.previousAutoLogin == bob)
    #expect(try tree.mode(tree.paths.index) == 0o600)
    #expect(try tree.mode(tree.paths.stateDirectory) == 0o700)
    #expect(try tree.mode(tree.root + "/state") == 0o700, "missing XDG directories are created private too")
    #expect(try tree.mode(store.file.lockPath) == 0o600)
  }

  @Test func keepsThePreviousVersionAsABackup() throws {
    let tree = try TemporaryTree()
    let store = IndexStore(paths: tree.paths)
    try store.update { try $0.add(Account(id: AccountID(user: "a", backend: "b"), addedAt: now)) }
    let first = try Data(contentsOf: URL(fileURLWithPath: tree.paths.index))
    try store.update { try $0.add(Account(id: AccountID(user: "c", backend: "b"), addedAt: now)) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: store.file.backupPath)) == first)
  }

  @Test func writesNothingWhenNothingChanged() throws {
    let tree = try TemporaryTree()
    let store = IndexStore(paths: tree.paths)
    try store.update { try $0.add(Account(id: AccountID(user: "a", backend: "b"), addedAt: now)) }
    let before = try FileManager.default.attributesOfItem(atPath: tree.paths.index)[.systemFileNumber] as! NSNumber
    try store.update { _ in }
    let after = try FileManager.default.attributesOfItem(atPath: tree.paths.index)[.systemFileNumber] as! NSNumber
    #expect(before == after, "an unchanged book is not rewritten")
  }

  @Test func malformedIndexIsNamedWithItsPositionAndLeftUntouched() throws {
    let tree = try TemporaryTree()
    try FileManager.default.createDirectory(atPath: tree.paths.stateDirectory, withIntermediateDirectories: true)
    let text = "{\n  \"version\": 1,\n  \"accounts\": [\n    {\"user\": \"a\" \"backend\": \"b\"}\n  ]\n}\n"
    try text.write(toFile: tree.paths.index, atomically: false, encoding: .utf8)
    let store = IndexStore(paths: tree.paths)
    for attempt in [{ _ = try store.load() }, { try store.update { try $0.add(Account(id: AccountID(user: "x", backend: "b"), addedAt: now)) } }] {
      do {
        try attempt()
        Issue.record("a malformed index was accepted")
      } catch let error as FileError {
        #expect(error.status == .failure)
        #expect(error.message.hasPrefix("\(tree.paths.index) is malformed: line 4, column"), "\(error.message)")
        #expect(error.fix?.contains("fix it by hand") == true)
      }
    }
    #expect(try String(contentsOfFile: tree.paths.index, encoding: .utf8) == text, "never overwritten")
  }

  @Test func wrongFieldTypesAreNamedByPath() throws {
    let tree = try TemporaryTree()
    try FileManager.default.createDirectory(atPath: tree.paths.stateDirectory, withIntermediateDirectories: true)
    let text = """
      {"version": 1, "auto_login": null, "previous_auto_login": null, "accounts": [
        {"user": "a", "backend": "b", "remembered": false, "added_at": "2026-11-22T07:00:00Z", "last_login": null, "token": null, "session": {}},
        {"user": "c", "backend": "b", "remembered": "yes", "added_at": "2026-11-22T07:00:00Z", "last_login": null, "token": null, "session": {}}
      ]}
      """
    try text.write(toFile: tree.paths.index, atomically: false, encoding: .utf8)
    #expect {
      _ = try IndexStore(paths: tree.paths).load()
    } throws: { error in
      (error as? FileError)?.message.hasSuffix("accounts[1].remembered: expected a boolean, found a string") == true
    }
  }

  @Test func aNewerFormatIsNotGuessedAt() throws {
    let tree = try TemporaryTree()
    try FileManager.default.createDirectory(atPath: tree.paths.stateDirectory, withIntermediateDirectories: true)
    try #"{"version": 2, "accounts": []}"#.write(toFile: tree.paths.index, atomically: false, encoding: .utf8)
    #expect(throws: FileError.newerFormat(path: tree.paths.index, version: 2)) {
      _ = try IndexStore(paths: tree.paths).load()
    }
  }

  @Test func concurrentWritersLoseNothing() async throws {
    let tree = try TemporaryTree()
    let paths = tree.paths
    let now = now
    // Each task opens the lock file itself, so flock serialises them as it does processes.
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<40 {
        group.addTask {
          try IndexStore(paths: paths).update { book in
            try book.add(Account(id: AccountID(user: "user\(index)", backend: "corp"), addedAt: now))
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(try IndexStore(paths: paths).load().accounts.count == 40)
  }
}

@Suite struct ConfigStoreTests {
  @Test func roundTripsBackendsWithoutSecrets() throws {
    let tree = try TemporaryTree()
    let store = ConfigStore(paths: tree.paths)
    #expect(try store.load().backends.isEmpty)
    let corp = BackendConfig(name: "corp", adapter: "signed", settings: ["base_url": "https://api.corp.example", "app_id": "170ib"], secretSettings: ["private_key"])
    try store.update { try $0.add(corp) }
    try store.update { try $0.add(BackendConfig(name: "alpha", adapter: "plain")) }
    let loaded = try store.load()
    #expect(loaded.backends.map(\.name) == ["alpha", "corp"])
    #expect(loaded["corp"] == corp)
    #expect(try tree.mode(tree.paths.config) == 0o600)
    #expect(throws: ConfigurationError.backendExists("corp")) { try store.update { try $0.add(corp) } }
  }

  @Test func picksTheBackendForANewAccount() throws {
    var configuration = try Configuration()
    #expect(throws: ConfigurationError.noBackends) { try configuration.backendForNewAccount(requested: nil) }
    try configuration.add(BackendConfig(name: "corp", adapter: "plain"))
    #expect(try configuration.backendForNewAccount(requested: nil).name == "corp")
    try configuration.add(BackendConfig(name: "test", adapter: "plain"))
    #expect(throws: ConfigurationError.backendNeeded(["corp", "test"])) { try configuration.backendForNewAccount(requested: nil) }
    #expect(try configuration.backendForNewAccount(requested: "test").name == "test")
    #expect(throws: ConfigurationError.unknownBackend("crop", suggestions: ["corp"])) { try configuration.backendForNewAccount(requested: "crop") }
  }
}

/// What DocumentFile refuses to read, and how it writes through a symbolic link.
@Suite struct DocumentFileTests {
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
