@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Foundation
import TestDoubles
import Testing

/// config.json through its store: what it keeps, and how a malformed one is named.
@Suite struct ConfigStoreTests {
  let file = DocumentFile(path: "/nonexistent/config.json")

  /// The error loading a config.json of `text` gives, without the file's path: checked to be one
  /// line that is safe to print.
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

  /// A malformed config.json names the offending key or value as the user wrote it in the file
  /// (JSON's own escapes), on one line, and never in Swift's `\u{a}` spelling.
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

  /// A backend name of kilobytes is quoted by its first 80 characters: the error stays a short
  /// line, however long the key.
  @Test func aLongBackendNameIsQuotedInPart() {
    let name = "a.b-c_d" + String(repeating: "k", count: 3000)
    let text = #"{"version": 1, "backends": {"\#(name)": {"adapter": "plain", "settings": {}}}}"#
    #expect(throws: FileError.malformed(
      path: file.path, detail: "backends.\(name.prefix(80))…: not a valid backend name", backup: nil)
    ) { try ConfigFormat.decode(Array(text.utf8), file: file) }
  }
}
