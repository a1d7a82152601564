import Testing

@testable import AccountsCore
import AccountsContract
import AccountsSystem

/// The durations `--wait` and `--ttl` take: the documented forms, and what must be refused.
@Suite struct DurationArgumentTests {
  @Test(arguments: [
    ("0", 0), ("500ms", 500), ("30s", 30_000), ("10m", 600_000), ("1h", 3_600_000), ("1h30m", 5_400_000),
    ("2m30s", 150_000), ("1h0m5s250ms", 3_605_250), ("0s", 0), ("8784h", 8784 * 3_600_000),
  ] as [(String, Int64)])
  func readsTheDocumentedForms(_ text: String, _ milliseconds: Int64) {
    #expect(DurationArgument.milliseconds(text) == milliseconds)
  }

  @Test(arguments: [
    "", "00x", "5", "1.5s", "-1s", "+1s", "1 h", "1H", "1d", "30sec", "m", "1m1h", "1s1s", "1ms1s", "1h 30m",
    "8785h", "9999999999s", "١s", "1s\n", "10mm",
  ])
  func refusesEverythingElse(_ text: String) {
    #expect(DurationArgument.milliseconds(text) == nil, "\(text.debugDescription)")
  }

  @Test func theErrorNamesTheOptionAndTheForms() {
    #expect(throws: (any Error).self) { try DurationArgument.parse("soon", option: "--wait") }
    do {
      _ = try DurationArgument.parse("soon\u{1b}[31m", option: "--wait")
    } catch {
      #expect(error.message.hasPrefix("--wait 'soon\\u{1b}[31m' is not a duration") || error.message.contains("is not a duration"))
      #expect(!error.message.contains("\u{1b}"), "no raw escape reaches a terminal")
      #expect(error.fix?.contains("1h30m") == true)
    }
  }
}
