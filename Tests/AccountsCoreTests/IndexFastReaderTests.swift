@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Testing

/// The fast reader of the index decides nothing: on every file it reads, it gives what the
/// general reader gives, and on the files accounts writes it does read (else it saves no time).
@Suite struct IndexFastReaderTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)
  let file = DocumentFile(path: "/nonexistent/accounts.json")

  /// A book with every field the index has.
  func fullBook() throws -> AccountBook {
    var book = AccountBook()
    let alice = AccountID(user: "alice@example.com", backend: "corp")
    let bob = AccountID(user: "bob", backend: "test")
    try book.add(
      Account(
        id: alice, remembered: true, token: TokenRecord(expiresAt: now.adding(seconds: 3600), generation: "g1"),
        lastLogin: now, addedAt: now, session: ["userId": "42", "region": "cn"], tags: ["qa", "smoke.1"]))
    try book.add(Account(id: bob, token: TokenRecord(expiresAt: nil), addedAt: now.adding(seconds: -5)))
    try book.add(Account(id: AccountID(user: "carol", backend: "corp"), addedAt: now))
    book.apply(Transition(slot: .take), to: bob, at: now)
    book.apply(Transition(slot: .take), to: alice, at: now)
    book.markUnsettled(bob)
    book.secretService = "gnome-keyring-daemon"
    return book
  }

  /// Both readers on `text`: equal books whenever the fast one reads it.
  func expectAgreement(_ text: String, fastReads: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    let bytes = Array(text.utf8)
    let fast = IndexFastReader.read(bytes)
    let general = try? IndexFormat.decodeGenerally(bytes, file: file)
    if let fast { #expect(fast == general, "\(text)", sourceLocation: sourceLocation) }
    if let fastReads { #expect((fast != nil) == fastReads, "\(text)", sourceLocation: sourceLocation) }
  }

  @Test func readsWhatAccountsWrites() throws {
    for book in [AccountBook(), try fullBook()] {
      let text = IndexFormat.encode(book)
      expectAgreement(text, fastReads: true)
      #expect(IndexFastReader.read(Array(text.utf8)) == book)
      // The same without any whitespace.
      let compact = String(text.filter { $0 != "\n" && $0 != " " })
      expectAgreement(compact, fastReads: true)
    }
  }

  /// Files accounts does not write: the fast reader leaves them to the general one, or agrees.
  @Test func leavesEverythingElseToTheGeneralReader() throws {
    let text = IndexFormat.encode(try fullBook())
    func variant(_ target: String, _ replacement: String) -> String {
      precondition(text.contains(target), target)
      return text.replacingOccurrences(of: target, with: replacement)
    }
    let cases: [(String, Bool?)] = [
      (variant("\"version\": 1", "\"version\": 2"), false),
      (variant("\"smoke.1\"", "\"smoke 1\""), false),
      (variant("\"smoke.1\"", "\"-smoke\""), false),
      (variant("\"smoke.1\"", "1"), false),
      (variant("\"smoke.1\"", "\"qa\""), true),
      (variant("\"smoke.1\"", "\"a\""), true),
      (variant("\"version\": 1", "\"version\": 1.0"), false),
      (variant("\"version\": 1", "\"version\": 10"), false),
      (variant("\"version\": 1,", ""), false),
      (variant("\"version\": 1", "\"version\": 1, \"future\": true"), false),
      (variant("\"user\": \"bob\"", "\"user\": \"bob\", \"nickname\": \"b\""), false),
      (variant("\"generation\": \"g1\"", "\"generation\": \"g1\", \"scope\": \"all\""), false),
      (variant("\"user\": \"bob\"", "\"user\": \"张三\""), false),
      (variant("\"user\": \"bob\"", "\"user\": \"\\u0062ob\""), false),
      (variant("\"user\": \"bob\"", "\"user\": \"bob\", \"user\": \"bob\""), false),
      (variant("\"user\": \"bob\"", "\"user\": \"-bob\""), false),
      (variant("\"user\": \"bob\"", "\"user\": \"b b\""), false),
      (variant("\"backend\": \"test\"", "\"backend\": \"t@st\""), false),
      (variant("\"remembered\": false", "\"remembered\": 0"), false),
      (variant("\"remembered\": false", "\"remembered\": falsey"), false),
      (variant("\"userId\": \"42\"", "\"userId\": 42"), false),
      (variant("\"userId\": \"42\"", "\"userId\": \"42\", \"userId\": \"43\""), false),
      (variant("\"secret_service\": \"gnome-keyring-daemon\"", "\"secret_service\": null"), true),
      (variant("\"unsettled\": [\n    \"bob@test\"\n  ]", "\"unsettled\": null"), true),
      (variant("\"unsettled\": [\n    \"bob@test\"\n  ]", "\"unsettled\": [\"nobody\"]"), false),
      (variant("\"auto_login\": \"alice@example.com@corp\"", "\"auto_login\": \"dave@corp\""), false),
      (variant("\"token\": {\n        \"expires_at\": null\n      }", "\"token\": {}"), true),
      (variant("\"token\": {\n        \"expires_at\": null\n      }", "\"token\": null"), true),
      (variant("\"session\": {}", "\"session\": null"), true),
      (variant("\"added_at\": \"2027-01-15T08:00:00Z\",\n      \"last_login\": null", "\"last_login\": null"), false),
      (variant("\"last_login\": null", "\"last_login\": 5"), false),
      (variant("\"last_login\": null", "\"last_login\": \"yesterday\""), false),
      (variant("\"last_login\": null", "\"last_login\": \"2027-01-15T08:00:00+08:00\""), true),
      ("\u{FEFF}" + text, false),
      (text + "x", false),
      (text + "\n\t\r ", true),
      (String(text.dropLast(2)), false),
      (variant("\n  ]", ",\n  ]"), false),
      ("[]", false),
      ("", false),
    ]
    for (document, fastReads) in cases {
      expectAgreement(document, fastReads: fastReads)
    }
  }
}
