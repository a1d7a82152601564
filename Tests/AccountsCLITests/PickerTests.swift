import AccountsContract
import AccountsCore
import Testing

@testable import AccountsCLI
import AccountsSystem

/// The picker of `accounts switch` as pure state: filtering, moving, choosing, scrolling, and
/// the keys a raw terminal sends.
@Suite struct PickerTests {
  func picker(_ keys: [String]) -> Picker {
    Picker(rows: keys.map { Picker.Row(key: $0, line: $0) })
  }

  @Test func theFilterIsASubsequenceInAnyCase() {
    #expect(Picker.matches("alice@corp", filter: ""))
    #expect(Picker.matches("alice@corp", filter: "ac"))
    #expect(Picker.matches("alice@corp", filter: "ALI@C"))
    #expect(Picker.matches("alice@corp", filter: "alice@corp"))
    #expect(!Picker.matches("alice@corp", filter: "ca@"), "the letters in order only")
    #expect(!Picker.matches("alice@corp", filter: "aa"), "each letter once")
    #expect(!Picker.matches("alice@corp", filter: "alice@corpx"))
  }

  @Test func theFilterIgnoresCapitalsInTheName() {
    #expect(Picker.matches("Alice@Corp", filter: "ali"), "a name with capitals, typed in lower case")
    #expect(Picker.matches("Alice@Corp", filter: "ac"))
    #expect(Picker.matches("ALICE@CORP", filter: "aLi@c"))
    var picker = picker(["Alice@corp", "bob@corp"])
    picker.type("ali")
    #expect(picker.matches == [0])
  }

  @Test func typingFiltersAndStartsAtTheFirstMatch() {
    var picker = picker(["alice@corp", "bob@corp", "carol@gh", "al@gh"])
    picker.move(2)
    picker.type("a")
    #expect(picker.matches == [0, 2, 3], "bob has no a")
    #expect(picker.chosen == 0, "a new filter starts at the top")
    picker.type("G")
    #expect(picker.matches == [2, 3])
    picker.move(1)
    #expect(picker.chosen == 3)
    picker.backspace()
    #expect(picker.filter == "a")
    #expect(picker.matches == [0, 2, 3])
    picker.clearFilter()
    #expect(picker.matches == [0, 1, 2, 3])
    picker.backspace()
    #expect(picker.filter == "", "backspace on nothing does nothing")
  }

  @Test func movingStopsAtBothEnds() {
    var picker = picker(["a@x", "b@x", "c@x"])
    picker.move(-1)
    #expect(picker.chosen == 0)
    picker.move(1)
    picker.move(1)
    #expect(picker.chosen == 2)
    picker.move(1)
    #expect(picker.chosen == 2)
    picker.move(-5)
    #expect(picker.chosen == 0)
  }

  @Test func nothingMatchingChoosesNothing() {
    var picker = picker(["alice@corp"])
    picker.type("zz")
    #expect(picker.matches.isEmpty)
    #expect(picker.chosen == nil, "Enter on no match chooses nothing")
    picker.move(1)
    picker.move(-1)
    #expect(picker.chosen == nil)
    picker.backspace()
    picker.backspace()
    #expect(picker.chosen == 0)
    #expect(self.picker([]).chosen == nil)
  }

  @Test func aLongListScrollsToKeepTheSelectionShown() {
    var picker = picker((0..<10).map { "user\($0)@x" })
    #expect(picker.window(height: 3) == 0..<3)
    picker.move(3)
    #expect(picker.window(height: 3) == 1..<4, "the least scroll that shows row 3")
    picker.move(-1)
    #expect(picker.window(height: 3) == 1..<4, "no scroll while it is shown")
    picker.move(-2)
    #expect(picker.window(height: 3) == 0..<3)
    picker.move(20)
    #expect(picker.window(height: 3) == 7..<10)
    #expect(picker.window(height: 20) == 0..<10, "a taller window shows all")
    picker.type("user9")
    #expect(picker.window(height: 3) == 0..<1)
  }

  @Test func keysAreDecodedFromRawBytes() {
    func keys(_ bytes: [UInt8]) -> [PickerKey] { PickerKey.decode(bytes) }
    #expect(keys(Array("al".utf8) + [13]) == [.text("al"), .enter])
    #expect(keys([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42]) == [.up, .down])
    #expect(keys([0x1B, 0x4F, 0x41, 0x1B, 0x4F, 0x42]) == [.up, .down], "application cursor mode")
    #expect(keys([0x10, 0x0E]) == [.up, .down], "Ctrl-P, Ctrl-N")
    #expect(keys([0x7F, 0x08, 0x15]) == [.backspace, .backspace, .clearFilter])
    #expect(keys([0x1B]) == [.cancel], "a lone ESC is Esc")
    #expect(keys([0x03]) == [.cancel], "Ctrl-C")
    #expect(keys([0x1A]) == [.suspend], "Ctrl-Z")
    #expect(
      keys([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x48, 0x61]) == [.text("a")], "Ctrl-Home skipped whole")
    #expect(keys(Array("é".utf8)) == [.text("é")])
    #expect(keys([0x61, 0x09, 0x62]) == [.text("a"), .text("b")], "other controls are ignored")
  }

  @Test func theScreenFitsTheWidthAndReturnsToThePrompt() {
    var picker = Picker(rows: [
      Picker.Row(key: "alice@corp", line: "  alice  corp  " + String(repeating: "x", count: 100))
    ])
    let frame = PickerScreen.frame(
      &picker, header: "  ACCOUNT", prompt: "switch to> ", lines: 3, width: 40, reserving: false)
    let drawn = frame.split(separator: "\r\n")
    #expect(drawn.count == 3)
    #expect(
      drawn.allSatisfy { $0.replacing(/\x1B\[[0-9;]*[A-Za-z]|\r/, with: "").count < 40 }, "\(drawn)"
    )
    #expect(frame.hasSuffix("\u{1B}[2A\r\u{1B}[11C"), "back on the prompt line, after the filter")
    let reserved = PickerScreen.frame(
      &picker, header: "  ACCOUNT", prompt: "switch to> ", lines: 3, width: 40, reserving: true)
    #expect(reserved.hasPrefix("\r\n\n\u{1B}[2A"), "room for 3 lines made below the cursor first")
    picker.type("\u{1B}[2J")
    let typed = PickerScreen.frame(
      &picker, header: "  ACCOUNT", prompt: "switch to> ", lines: 3, width: 40, reserving: false)
    #expect(!typed.contains("\u{1B}[2J"), "the filter is printed through Names.printable")
  }

  @Test func rowsComeMostRecentFirstThenNeverLoggedIn() throws {
    func account(_ user: String, _ login: Int64?) throws -> Account {
      Account(
        id: AccountID(user: user, backend: "corp"),
        lastLogin: login.map { Timestamp(secondsSince1970: $0) },
        addedAt: Timestamp(secondsSince1970: 0))
    }
    var book = AccountBook()
    for account in [
      try account("old", 100), try account("never", nil), try account("new", 300),
      try account("mid", 200),
    ] {
      try book.add(account)
    }
    let (header, rows, ids) = AccountPresentation.pickerRows(
      book, now: Timestamp(secondsSince1970: 400))
    #expect(ids.map(\.user) == ["new", "mid", "old", "never"])
    #expect(rows.map(\.key) == ["new@corp", "mid@corp", "old@corp", "never@corp"])
    #expect(header.hasPrefix("  ACCOUNT"))
    #expect(rows.last?.line.hasSuffix("never") == true, "\(rows)")
  }
}
