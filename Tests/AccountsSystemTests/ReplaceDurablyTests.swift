import AccountsSystem
import Foundation
import Testing

/// One atomic replace for every file the tool rewrites: the index, the configuration, lease
/// records and token files.
@Suite struct ReplaceDurablyTests {
  let root: String

  init() throws {
    var template = Array("/tmp/accounts-replace-XXXXXX".utf8CString)
    root = String(cString: try #require(mkdtemp(&template)))
  }

  func contents(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func theNewContentReplacesTheOldAndNoTemporaryStays() throws {
    let path = root + "/index"
    try replaceDurably(path, with: Array("old".utf8))
    try replaceDurably(path, with: Array("new".utf8))
    #expect(contents(path) == "new")
    #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
  }

  @Test func beforeRenameSeesTheOldVersionStillInPlace() throws {
    let path = root + "/config"
    try replaceDurably(path, with: Array("one".utf8))
    var seen: String?
    try replaceDurably(path, with: Array("two".utf8)) { seen = contents(path) }
    #expect(seen == "one")
    #expect(contents(path) == "two")
  }

  @Test func aFailedRenameLeavesTheOldContentAndRemovesTheTemporary() throws {
    // A directory in the way makes rename fail with EISDIR after the temporary is written.
    let path = root + "/occupied"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    var failure: FileError?
    do { try replaceDurably(path, with: Array("x".utf8), reportingAs: "shown-name") } catch { failure = error }
    let error = try #require(failure)
    #expect(error.message.contains("shown-name"))
    #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    var isDirectory: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
  }
}
