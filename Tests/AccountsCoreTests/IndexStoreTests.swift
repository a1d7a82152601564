@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Foundation
import TestDoubles
import Testing

/// The index through its store: what it keeps, how it writes, and how a malformed one is named.
@Suite struct IndexStoreTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)
  let file = DocumentFile(path: "/nonexistent/accounts.json")

  func index(_ members: String) -> [UInt8] {
    let account = #"{"user": "bob", "backend": "corp", "remembered": true, "added_at": "2026-01-01T00:00:00Z""#
    return Array(#"{"version": 1, "auto_login": null, "accounts": [\#(account), \#(members)}]}"#.utf8)
  }

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

  /// An account's times of the wrong type make the index malformed there, named by path, as
  /// every other known member of the wrong type does: never kept as a member this version does
  /// not know (which a write would then drop).
  @Test(arguments: [("false", "a boolean"), ("0", "a number"), ("[]", "an array"), ("{}", "an object")])
  func aLastLoginOfTheWrongTypeIsMalformed(value: String, kind: String) {
    #expect(throws: FileError.malformed(
      path: file.path, detail: "accounts[0].last_login: expected a string, found \(kind)", backup: nil)
    ) { try IndexFormat.decode(index(#""last_login": \#(value)"#), file: file) }
  }

  /// The same for `added_at`: a value of the wrong type is malformed there, not missing.
  @Test func anAddedAtOfTheWrongTypeIsMalformed() {
    let account = #"{"user": "bob", "backend": "corp", "remembered": true, "added_at": 20260101}"#
    let text = #"{"version": 1, "auto_login": null, "accounts": [\#(account)]}"#
    #expect(throws: FileError.malformed(
      path: file.path, detail: "accounts[0].added_at: expected a string, found a number", backup: nil)
    ) { try IndexFormat.decode(Array(text.utf8), file: file) }
  }

  /// A key of a session value of kilobytes is quoted by its first 80 characters (each `é` one
  /// character).
  @Test func aLongSessionKeyIsQuotedInPart() {
    let key = String(repeating: "é", count: 500)
    let account = #"{"user": "bob", "backend": "corp", "remembered": false, "added_at": "2026-01-01T00:00:00Z""#
    let text = #"{"version": 1, "accounts": [\#(account), "session": {"\#(key)": 1}}]}"#
    #expect(throws: FileError.malformed(
      path: file.path, detail: "accounts[0].session.\(key.prefix(80))…: expected a string, found a number", backup: nil)
    ) { try IndexFormat.decode(Array(text.utf8), file: file) }
  }
}
