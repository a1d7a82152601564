@testable import AccountsCore
import AccountsSystem
import Testing

/// A key of kilobytes in config.json or the index, found by fuzzing (scripts/fuzz): the error
/// names its place with the key's first 80 characters, not a line of kilobytes.
@Suite struct DocumentLongKeyTests {
  let file = DocumentFile(path: "/nonexistent/config.json")

  /// FUZZ_SEED=1 FUZZ_CASE=1361 of the documents target: a backend named `a.b-c_d` and 3,000
  /// more `k` made an error of 3,162 characters.
  @Test func aLongBackendNameIsQuotedInPart() {
    let name = "a.b-c_d" + String(repeating: "k", count: 3000)
    let text = #"{"version": 1, "backends": {"\#(name)": {"adapter": "plain", "settings": {}}}}"#
    #expect(throws: FileError.malformed(
      path: file.path, detail: "backends.\(name.prefix(80))…: not a valid backend name", backup: nil)
    ) { try ConfigFormat.decode(Array(text.utf8), file: file) }
  }

  /// The same in the index, for a key of a session value (each `é` one character).
  @Test func aLongSessionKeyIsQuotedInPart() {
    let key = String(repeating: "é", count: 500)
    let account = #"{"user": "bob", "backend": "corp", "remembered": false, "added_at": "2026-01-01T00:00:00Z""#
    let text = #"{"version": 1, "accounts": [\#(account), "session": {"\#(key)": 1}}]}"#
    #expect(throws: FileError.malformed(
      path: file.path, detail: "accounts[0].session.\(key.prefix(80))…: expected a string, found a number", backup: nil)
    ) { try IndexFormat.decode(Array(text.utf8), file: file) }
  }
}
