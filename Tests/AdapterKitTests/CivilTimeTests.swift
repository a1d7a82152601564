import Testing

@testable import AdapterKit

@Suite struct CivilTimeTests {
  /// 2017-12-09 13:39:39 UTC, the seeds' vector moment.
  static let vectorMoment: Int64 = 1_512_826_779

  @Test func theVectorMinuteAndTimestamp() throws {
    let time = try #require(CivilTime(seconds: Self.vectorMoment, offset: 0))
    #expect(time.hmacMinute == "2017-12-0913:39")
    #expect(time.signedTimestamp == "2017-12-09-13:39:39")
  }

  @Test func offsetsMoveTheWallClockAcrossDays() throws {
    let east = try #require(CivilTime(seconds: Self.vectorMoment, offset: 11 * 3600))
    #expect(east.signedTimestamp == "2017-12-10-00:39:39")
    let west = try #require(CivilTime(seconds: Self.vectorMoment, offset: -(13 * 3600 + 40 * 60)))
    #expect(west.signedTimestamp == "2017-12-08-23:59:39")
  }

  @Test(arguments: [
    (Int64(0), "1970-01-01-00:00:00"),
    (-1, "1969-12-31-23:59:59"),
    (951_782_400, "2000-02-29-00:00:00"),
    (4_107_542_400, "2100-03-01-00:00:00"),
    (1_709_164_799, "2024-02-28-23:59:59"),
    (-62_135_596_800, "0001-01-01-00:00:00"),
    (253_402_300_799, "9999-12-31-23:59:59"),
  ])
  func knownMoments(seconds: Int64, text: String) throws {
    #expect(try #require(CivilTime(seconds: seconds, offset: 0)).signedTimestamp == text)
  }

  @Test func everyDayOfFourCenturiesRoundTripsThroughItsFields() throws {
    // Walk day by day from 1900 to 2300 and check the fields advance like a calendar.
    var previous = try #require(CivilTime(seconds: -2_208_988_800, offset: 0))
    #expect(previous.signedTimestamp == "1900-01-01-00:00:00")
    for day in Int64(1)...146_097 {
      let time = try #require(CivilTime(seconds: -2_208_988_800 + day * 86_400, offset: 0))
      let nextDay =
        time.year == previous.year && time.month == previous.month && time.day == previous.day + 1
      let nextMonth =
        time.day == 1 && time.month == previous.month % 12 + 1
        && time.year == previous.year + (time.month == 1 ? 1 : 0)
      let leap = previous.year % 4 == 0 && (previous.year % 100 != 0 || previous.year % 400 == 0)
      let monthLength =
        previous.month == 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].contains(previous.month) ? 30 : 31
      let midnight = time.hour == 0 && time.minute == 0 && time.second == 0
      guard midnight, nextDay || (nextMonth && previous.day == monthLength) else {
        Issue.record("\(previous.signedTimestamp) is followed by \(time.signedTimestamp)")
        return
      }
      previous = time
    }
    #expect(previous.signedTimestamp == "2300-01-01-00:00:00")
  }

  @Test func momentsOutsideYearsOneToNineThousandAreRefused() {
    #expect(CivilTime(seconds: -62_135_596_801, offset: 0) == nil)
    #expect(CivilTime(seconds: 253_402_300_800, offset: 0) == nil)
    #expect(CivilTime(seconds: Int64.max, offset: 1) == nil, "no overflow trap")
    #expect(CivilTime(seconds: Int64.min, offset: -1) == nil)
  }

  @Test(arguments: [
    ("local", TimeZoneSetting.local), ("UTC", .fixed(0)), ("utc", .fixed(0)),
    ("+08:00", .fixed(28_800)), ("-05:30", .fixed(-19_800)), ("+00:00", .fixed(0)),
    ("-23:59", .fixed(-86_340)),
  ])
  func timeZonesThatParse(text: String, zone: TimeZoneSetting) {
    #expect(TimeZoneSetting(text) == zone)
  }

  @Test(arguments: [
    "Mars", "", "+8:00", "+08", "08:00", "+24:00", "+08:60", "+0a:00", "Local", " UTC",
  ])
  func timeZonesThatDoNot(text: String) {
    #expect(TimeZoneSetting(text) == nil)
  }

  @Test func localTimeAsksTheHostForTheOffsetAtNow() throws {
    let host = FakeHost()
    host.clock = Self.vectorMoment - 8 * 3600
    host.offset = 8 * 3600
    #expect(try host.civilTimeNow(in: .local).hmacMinute == "2017-12-0913:39")
    #expect(host.offsetQueries == [Self.vectorMoment - 8 * 3600])
    #expect(try host.civilTimeNow(in: .fixed(0)).hmacMinute == "2017-12-0905:39")
    #expect(host.offsetQueries.count == 1, "a fixed zone does not ask")
  }

  @Test func aBrokenHostClockOrZoneIsAnError() {
    let host = FakeHost()
    host.clock = Int64.max
    #expect(
      errorMessage { () throws(AdapterError) in try host.civilTimeNow(in: .fixed(0)) }?
        .hasPrefix("the host's clock says") == true)
    host.clock = 0
    host.offset = 100_000
    #expect(
      errorMessage { () throws(AdapterError) in try host.civilTimeNow(in: .local) }
        == "the host's local UTC offset 100000 s is not a real time zone")
  }
}
