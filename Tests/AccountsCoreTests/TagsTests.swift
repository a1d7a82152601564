@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Foundation
import Testing

/// Tags (`accounts tag`): the rule for a tag, and how the index keeps them, read by both of
/// its readers.
@Suite struct TagsTests {
  let now = Timestamp(secondsSince1970: 1_800_000_000)
  let file = DocumentFile(path: "/nonexistent/accounts.json")

  @Test func aTagIsOneASCIIWordOfLettersDigitsDashUnderscoreAndDot() {
    for good in ["qa", "QA", "smoke-2", "ci_shard.3", "v1.2", "_x", ".hidden", "a-", String(repeating: "t", count: 64)] {
      #expect(Tags.isValid(good), "\(good)")
    }
    let bad = [
      "", "a b", " qa", "qa\n", "a/b", "a,b", "a@b", "a+b", "$(id)", "*", "-qa", "--", "ü", "qä", "标签",
      "qa\u{200B}", "qa\u{1B}", String(repeating: "t", count: 65),
    ]
    for tag in bad { #expect(!Tags.isValid(tag), "\(tag.debugDescription)") }
  }

  @Test func aBadTagIsAUsageErrorNamingItAndTheRule() {
    for (tag, named) in [("a b", "'a b'"), ("a/b", "'a/b'"), ("ü", "'ü'"), ("x\u{1B}[31m", "'x\\u{1b}[31m'"), ("", "empty")] {
      do {
        try Tags.check(tag)
        Issue.record("\(tag.debugDescription) was accepted")
      } catch {
        #expect(error.status == .usage)
        #expect(error.message.contains(named), "\(error.message)")
        #expect(error.fix?.contains(Tags.rule) == true)
      }
    }
    #expect(throws: Never.self) { try Tags.check("smoke") }
  }

  @Test func tagsAreKeptSortedEachOnceAndChangesAreIdempotent() {
    #expect(Tags.normalised(["smoke", "qa", "QA", "smoke", "qa"]) == ["QA", "qa", "smoke"])
    var account = Account(id: AccountID(user: "qa1", backend: "corp"), addedAt: now, tags: ["b", "a", "b"])
    #expect(account.tags == ["a", "b"])
    let tagged = account.tag(["qa", "a"])
    let taggedAgain = account.tag(["qa"])
    #expect(tagged && !taggedAgain, "tagging again changes nothing")
    #expect(account.tags == ["a", "b", "qa"])
    let untagged = account.untag(["a", "nope"])
    let untaggedAgain = account.untag(["a"])
    #expect(untagged && !untaggedAgain, "untagging a tag it does not have changes nothing")
    #expect(account.tags == ["b", "qa"])
    #expect(account.hasTags(["qa", "b"]) && account.hasTags([]) && !account.hasTags(["qa", "smoke"]))
  }

  func book() throws -> AccountBook {
    var book = AccountBook()
    try book.add(Account(id: AccountID(user: "qa1", backend: "corp"), addedAt: now, tags: ["smoke", "qa"]))
    try book.add(Account(id: AccountID(user: "bob", backend: "corp"), addedAt: now))
    return book
  }

  @Test func theIndexKeepsTagsAndBothReadersReadThem() throws {
    let book = try book()
    let text = IndexFormat.encode(book)
    #expect(text.contains("\"tags\": [\n        \"qa\",\n        \"smoke\"\n      ]"), "\(text)")
    #expect(text.components(separatedBy: "\"tags\"").count == 2, "an account without tags has no tags member")
    #expect(IndexFastReader.read(Array(text.utf8)) == book, "the fast reader reads tags")
    #expect(try IndexFormat.decodeGenerally(Array(text.utf8), file: file) == book)
  }

  /// An index without tags anywhere (what versions before tags wrote) reads as accounts without
  /// tags, by the fast reader too, so `list` stays fast for it.
  @Test func anIndexWithoutTagsReadsAsNoTags() throws {
    let text = """
      {"version": 1, "auto_login": null, "previous_auto_login": null,
       "accounts": [{"user": "qa1", "backend": "corp", "remembered": false, "added_at": "2027-01-15T08:00:00Z",
         "last_login": null, "token": null, "session": {}}]}
      """
    let fast = try #require(IndexFastReader.read(Array(text.utf8)))
    #expect(fast.accounts.map(\.tags) == [[]])
    #expect(try IndexFormat.decodeGenerally(Array(text.utf8), file: file) == fast)
  }

  /// Tags out of order or twice (an edit by hand) read as the sorted set by both readers; a
  /// tag that breaks the rule is named by its path, and the fast reader leaves it to the
  /// general one.
  @Test func tagsEditedByHandAreNormalisedOrNamed() throws {
    func index(_ tags: String) -> [UInt8] {
      Array(
        """
        {"version": 1, "accounts": [{"user": "qa1", "backend": "corp", "remembered": false,
          "added_at": "2027-01-15T08:00:00Z", "tags": \(tags)}]}
        """.utf8)
    }
    let unsorted = index("[\"smoke\", \"qa\", \"smoke\"]")
    #expect(IndexFastReader.read(unsorted)?.accounts.first?.tags == ["qa", "smoke"])
    #expect(try IndexFormat.decodeGenerally(unsorted, file: file) == IndexFastReader.read(unsorted))
    #expect(try IndexFormat.decodeGenerally(index("null"), file: file) == IndexFastReader.read(index("null")))
    for (tags, problem) in [
      ("[\"qa\", \"a b\"]", "accounts[0].tags[1]: 'a b' is not a valid tag"),
      ("[\"qa\", 7]", "accounts[0].tags[1]: expected a string"),
      ("\"qa\"", "accounts[0].tags: expected an array"),
    ] {
      #expect(IndexFastReader.read(index(tags)) == nil, "\(tags)")
      do {
        _ = try IndexFormat.decodeGenerally(index(tags), file: file)
        Issue.record("\(tags) was read")
      } catch let error as FileError {
        #expect(error.message.contains(problem), "\(error.message)")
      }
    }
  }
}
