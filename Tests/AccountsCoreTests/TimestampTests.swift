@testable import AccountsCore
import Testing

@Suite struct TimestampTests {
  /// A backend's absurd lifetime must never produce a time the index cannot read back.
  @Test func everyTimeThatIsWrittenReadsBack() throws {
    for seconds: Int64 in [.max, .min, 253_402_300_800, -62_167_219_201, 6_917_529_027_641_081_855] {
      let time = Timestamp(secondsSince1970: seconds)
      #expect(Timestamp(iso8601: time.iso8601) == time, "\(seconds) wrote \(time.iso8601)")
    }
    #expect(Timestamp(secondsSince1970: .max).iso8601 == "9999-12-31T23:59:59Z")
    #expect(Timestamp(secondsSince1970: .min).iso8601 == "0000-01-01T00:00:00Z")
    let now = Timestamp(secondsSince1970: 1_800_000_000)
    #expect(now.adding(seconds: .max) == Timestamp.latest)
    #expect(Timestamp.lifetime(6_917_529_027_641_081_855) == Timestamp.longestLifetime && Timestamp.longestLifetime == 316_224_000)
    #expect(Timestamp.lifetime(3600) == 3600)
    #expect(Timestamp.lifetime(0) == nil && Timestamp.lifetime(-5) == nil)
  }

  @Test func formatsAndParsesISO8601() throws {
    let time = Timestamp(secondsSince1970: 1_512_826_779)
    #expect(time.iso8601 == "2017-12-09T13:39:39Z")
    #expect(Timestamp(iso8601: "2017-12-09T13:39:39Z") == time)
    #expect(Timestamp(iso8601: "2017-12-09T21:39:39+08:00") == time)
    #expect(Timestamp(iso8601: "2017-12-09T13:39:39.250Z") == time)
    #expect(Timestamp(iso8601: "1970-01-01T00:00:00Z") == Timestamp(secondsSince1970: 0))
    #expect(Timestamp(iso8601: "2024-02-29T12:00:00Z") == Timestamp(secondsSince1970: 1_709_208_000))
    #expect(Timestamp(iso8601: "2000-02-29T00:00:00Z") == Timestamp(secondsSince1970: 951_782_400))
    #expect(Timestamp(iso8601: "1969-12-31T23:59:59Z") == Timestamp(secondsSince1970: -1))
    for bad in ["", "2017-12-09", "2017-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2017-04-31T00:00:00Z", "2017-12-09T13:39:39", "2017-12-09T25:00:00Z", "2017-12-09T13:39:39+0800", "x017-12-09T13:39:39Z"] {
      #expect(Timestamp(iso8601: bad) == nil, "\(bad)")
    }
  }

  @Test func roundTripsOverManyDates() {
    var seconds: Int64 = -86400 * 365
    while seconds < 4_102_444_800 {
      let time = Timestamp(secondsSince1970: seconds)
      #expect(Timestamp(iso8601: time.iso8601) == time)
      seconds += 86_399 * 17
    }
  }
}
