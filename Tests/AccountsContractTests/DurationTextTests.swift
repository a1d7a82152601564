import AccountsContract
import Testing

/// Every form the one duration formatter prints, at the edges between its units.
@Suite struct DurationTextTests {
  @Test(
    arguments: [
      (0, "0 s"), (45, "45 s"), (59, "59 s"), (60, "1 min"), (119, "1 min"), (3599, "59 min"), (3600, "1 h"),
      (3659, "1 h"), (3660, "1 h 1 min"), (9000, "2 h 30 min"), (86399, "23 h 59 min"), (86400, "1 d"),
      (3 * 86400 + 7200, "3 d"),
    ] as [(Int64, String)])
  func aSpanReadsInItsLargestUnits(seconds: Int64, text: String) {
    #expect(DurationText.span(seconds: seconds) == text)
  }

  @Test(arguments: [(1, "1 s"), (20, "20 s"), (0.5, "0.5 s"), (0.25, "0.3 s"), (1.04, "1.0 s"), (3600, "3600 s")])
  func secondsReadToATenth(seconds: Double, text: String) {
    #expect(DurationText.seconds(seconds) == text)
  }

  @Test(arguments: [(5, "5 s"), (0.25, "0.25 s"), (1.5, "1.5 s"), (0.001, "0.001 s")])
  func exactSecondsKeepEveryDigit(seconds: Double, text: String) {
    #expect(DurationText.seconds(exactly: seconds) == text)
  }

  @Test(
    arguments: [(30_000, "30 s"), (1500, "1.5 s"), (1, "0.001 s"), (0, "0 s"), (90_250, "90.25 s")] as [(Int64, String)]
  )
  func millisecondsReadAsSeconds(milliseconds: Int64, text: String) {
    #expect(DurationText.seconds(milliseconds: milliseconds) == text)
  }
}
