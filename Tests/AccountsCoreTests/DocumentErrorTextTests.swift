@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Foundation
import TestDoubles
import Testing

/// A malformed config.json or index names the offending key or value as the user wrote it in
/// the file (JSON's own escapes), on one line, and never in Swift's `\u{a}` spelling.
@Suite struct DocumentErrorTextTests {
  func configError(_ text: String) throws -> String {
    let tree = try TemporaryTree()
    try FileManager.default.createDirectory(atPath: tree.paths.configDirectory, withIntermediateDirectories: true)
    try text.write(toFile: tree.paths.config, atomically: false, encoding: .utf8)
    do {
      _ = try ConfigStore(paths: tree.paths).load()
    } catch let error as FileError {
      let message = error.message
      #expect(!message.unicodeScalars.contains(where: Names.isUnsafeForTerminal), "\(message)")
      #expect(!message.contains(#"\u{"#), "\(message)")
      return String(message.drop { $0 != ":" }.dropFirst(2))  // without the file's path
    }
    Issue.record("accepted: \(text)")
    return ""
  }

  @Test func keysAndValuesAreQuotedAsWritten() throws {
    #expect(
      try configError(#"{"version": 1, "backends": {"co\nrp": {"adapter": "plain", "settings": {}}}}"#)
        == #"backends.co\nrp: not a valid backend name"#)
    #expect(
      try configError(#"{"version": 1, "backends": {"corp": {"adapter": "plain", "settings": {"ba\u001bse": "x"}}}}"#)
        == #"backends.corp.settings.ba\u001bse: not a valid setting name"#)
    #expect(
      try configError(#"{"version": 1, "backends": {}, "rules": {"/a\tb\u202e": "alice@corp"}}"#)
        .hasPrefix(#"rules./a\tb\u202e: the directory: contains the invisible character"#))
    #expect(
      try configError(#"{"version": 1, "backends": {}, "x\"y": 1, "x\"y": 2}"#)
        .hasSuffix(#": duplicate key "x\"y""#))
    // Printable text, non-ASCII letters included, stays as it is.
    #expect(
      try configError(#"{"version": 1, "backends": {"코프 corp": {"adapter": "plain", "settings": {}}}}"#)
        == "backends.코프 corp: not a valid backend name")
  }
}
