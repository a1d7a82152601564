import AccountsCore
import AccountsSystem
import Testing

@testable import AccountsCLI

/// The table `list`, `rules`, `hooks` and `backend list` print: columns as wide as their widest
/// cell in characters, two spaces apart, the last column unpadded, every cell sanitised.
@Suite struct TextTableTests {
  @Test func columnsAreMeasuredInCharacters() {
    let table = TextTable.render([
      ["NAME", "NOTE", "LAST"],
      ["张伟", "e\u{301}x", "1"],
      ["bob", "", ""],
      ["a\u{1B}b", "tab\there", "x "],
    ])
    func spaces(_ count: Int) -> String { String(repeating: " ", count: count) }
    let expected = [
      "NAME" + spaces(6) + "NOTE" + spaces(10) + "LAST",
      "张伟" + spaces(8) + "e\u{301}x" + spaces(12) + "1",
      "bob",
      "a\\u{1b}b" + spaces(2) + "tab\\u{9}here" + spaces(2) + "x",
    ]
    #expect(table == expected.joined(separator: "\n") + "\n")
    #expect(TextTable.render([]) == "")
  }

  /// `after:` puts the words before the time in the same string.
  @Test func localTimeAfterWords() {
    let time = Timestamp(secondsSince1970: 1_795_417_200)
    #expect(LocalTime.format(time, after: "valid until ") == "valid until " + LocalTime.format(time))
    #expect(LocalTime.format(time).utf8.count == 16)
  }
}
