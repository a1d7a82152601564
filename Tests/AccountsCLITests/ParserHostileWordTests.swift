import AccountsCore
import Testing

@testable import AccountsCLI

/// Words the parser quotes in its errors, found by fuzzing (scripts/fuzz).
@Suite struct ParserHostileWordTests {
  let parser = Parser(commands: CommandTable.all, defaultCommand: "list")

  func message(_ arguments: [String]) -> String? {
    do {
      _ = try parser.parse(arguments)
      return nil
    } catch {
      return error.message
    }
  }

  /// `accounts -- ééé…` (FUZZ_SEED=1 FUZZ_CASE=43, a word of 7,548 characters) made an error
  /// line of 7,569: an unknown command or option is quoted as every other word is, at most 80
  /// characters, so a word of 128 KiB (the most argv holds) makes no line of 128 KiB.
  @Test func aLongUnknownWordIsQuotedInPart() {
    let word = String(repeating: "é", count: 7548)
    let quoted = String(repeating: "é", count: 80) + "…"
    #expect(message(["--", word]) == "unknown command '\(quoted)' for `accounts`")
    #expect(message([word]) == "unknown command '\(quoted)' for `accounts`")
    #expect(message(["backend", word]) == "unknown command '\(quoted)' for `accounts backend`")
    #expect(message(["--" + word]) == "unknown option '--\(quoted)' for `accounts`")
    let option = "-y" + String(repeating: "é", count: 78) + "…"
    #expect(message(["clear", "-y" + word]) == "unknown option '\(option)' for `accounts clear`")
  }

  /// A short hostile word reads as before: the one line of the error escapes what a terminal
  /// would act on either way.
  @Test func aShortUnknownWordIsQuotedWhole() {
    #expect(message(["lsit"]) == "unknown command 'lsit' for `accounts`")
    #expect(message(["--jsno"]) == "unknown option '--jsno' for `accounts`")
    #expect(message(["\u{1B}[2J"]) == "unknown command '\\u{1b}[2J' for `accounts`")
  }
}
