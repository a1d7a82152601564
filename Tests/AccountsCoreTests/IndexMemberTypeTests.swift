@testable import AccountsCore
import AccountsSystem
import Testing

/// An account's times of the wrong type, found by fuzzing (scripts/fuzz): the index is
/// malformed there, named by path, as for every other known member of the wrong type.
@Suite struct IndexMemberTypeTests {
  let file = DocumentFile(path: "/nonexistent/accounts.json")

  func index(_ members: String) -> [UInt8] {
    let account = #"{"user": "bob", "backend": "corp", "remembered": true, "added_at": "2026-01-01T00:00:00Z""#
    return Array(#"{"version": 1, "auto_login": null, "accounts": [\#(account), \#(members)}]}"#.utf8)
  }

  /// FUZZ_SEED=11939719598124719174 FUZZ_CASE=4866 of the documents target: `"last_login":
  /// false` was kept as a member this version does not know, so the account read without a
  /// last login, and writing the index back dropped the member.
  @Test(arguments: [("false", "a boolean"), ("0", "a number"), ("[]", "an array"), ("{}", "an object")])
  func aLastLoginOfTheWrongTypeIsMalformed(value: String, kind: String) {
    #expect(throws: FileError.malformed(
      path: file.path, detail: "accounts[0].last_login: expected a string, found \(kind)", backup: nil)
    ) { try IndexFormat.decode(index(#""last_login": \#(value)"#), file: file) }
  }

  /// The same for `added_at`, which said "missing" when it was there.
  @Test func anAddedAtOfTheWrongTypeIsMalformed() {
    let account = #"{"user": "bob", "backend": "corp", "remembered": true, "added_at": 20260101}"#
    let text = #"{"version": 1, "auto_login": null, "accounts": [\#(account)]}"#
    #expect(throws: FileError.malformed(
      path: file.path, detail: "accounts[0].added_at: expected a string, found a number", backup: nil)
    ) { try IndexFormat.decode(Array(text.utf8), file: file) }
  }
}
