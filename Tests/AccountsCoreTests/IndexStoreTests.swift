import AccountsCore
import Foundation
import Testing

/// A fresh XDG tree under the system's temporary directory, removed at the end.
final class TemporaryTree {
  let root: String
  let paths: Paths

  init() throws {
    root = NSTemporaryDirectory() + "accounts-core-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    paths = Paths(configDirectory: root + "/config/accounts", stateDirectory: root + "/state/accounts", dataDirectory: root + "/data/accounts")
  }

  deinit { try? FileManager.default.removeItem(atPath: root) }

  func mode(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
  }
}

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
