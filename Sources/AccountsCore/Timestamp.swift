import AccountsSystem

/// A point in time with one-second resolution, written as ISO-8601 UTC ("2026-11-22T07:00:00Z").
/// Foundation's Date would do, but the `list` path must not load Foundation (see bench/list).
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
  public private(set) var secondsSince1970: Int64

  /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the times ISO-8601's four-digit years can
  /// write. Every timestamp lies between them, so every one that is written reads back.
  public static let earliest = Timestamp(clamping: -62_167_219_200)
  public static let latest = Timestamp(clamping: 253_402_300_799)

  /// The time `secondsSince1970` seconds after the epoch, clamped to `earliest...latest`.
  public init(secondsSince1970: Int64) {
    self.secondsSince1970 = min(max(secondsSince1970, -62_167_219_200), 253_402_300_799)
  }

  private init(clamping seconds: Int64) {
    secondsSince1970 = seconds
  }

  /// The longest token lifetime accounts believes: ten years. A backend that says a token
  /// lives for a billion years gets ten (and the index never holds a time it cannot read).
  public static let longestLifetime: Int64 = 10 * 366 * 86_400

  /// A token lifetime a backend gave, in seconds, bounded by `longestLifetime`; nil when it
  /// gave none (0) or nonsense (negative).
  public static func lifetime(_ seconds: Int64) -> Int64? {
    seconds > 0 ? min(seconds, longestLifetime) : nil
  }

  /// The current wall-clock time.
  public static func now() -> Timestamp {
    Timestamp(secondsSince1970: wallClockSeconds())
  }

  public func adding(seconds: Int64) -> Timestamp {
    let (sum, overflow) = secondsSince1970.addingReportingOverflow(seconds)
    return Timestamp(secondsSince1970: overflow ? (seconds > 0 ? .max : .min) : sum)
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.secondsSince1970 < rhs.secondsSince1970
  }

  public var description: String { iso8601 }

  /// "YYYY-MM-DDTHH:MM:SSZ"
  public var iso8601: String {
    let parts = utcCalendar(secondsSince1970)
    return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))"
      + "T\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2))Z"
  }

  /// Parses "YYYY-MM-DDTHH:MM:SS" followed by an optional fraction (dropped) and "Z" or
  /// "+HH:MM" / "-HH:MM". Nil for anything else, including impossible dates.
  public init?(iso8601 text: String) {
    // The index holds two times per account and `list` reads them all: parse the UTF-8 in
    // place, and do the calendar arithmetic here rather than through timegm.
    var text = text
    guard let seconds = text.withUTF8(Self.parse) else { return nil }
    self.init(secondsSince1970: seconds)
  }

  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard bytes.count >= 20 else { return nil }
    func number(_ start: Int, _ length: Int) -> Int? {
      var value = 0
      for index in start..<(start + length) {
        let byte = bytes[index]
        guard byte >= 48, byte <= 57 else { return nil }
        value = value * 10 + Int(byte - 48)
      }
      return value
    }
    guard bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116,  // - - T
      bytes[13] == 58, bytes[16] == 58,  // : :
      let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
      let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
      (1...12).contains(month), (1...daysInMonth(month, of: year)).contains(day),
      hour < 24, minute < 60, second < 61
    else { return nil }
    var index = 19
    if bytes[index] == 46 {  // fraction
      index += 1
      let start = index
      while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
      guard index > start else { return nil }
    }
    var offset = 0
    guard index < bytes.count else { return nil }
    switch bytes[index] {
    case 90, 122:  // Z
      index += 1
    case 43, 45:  // + -
      guard bytes.count == index + 6, bytes[index + 3] == 58,
        let hours = number(index + 1, 2), let minutes = number(index + 4, 2),
        hours < 24, minutes < 60
      else { return nil }
      offset = (hours * 3600 + minutes * 60) * (bytes[index] == 45 ? -1 : 1)
      index += 6
    default:
      return nil
    }
    guard index == bytes.count else { return nil }
    let days = daysSince1970(year: year, month: month, day: day)
    return Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second - offset)
  }
}

/// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's
/// days_from_civil): exact for every year, no time zone involved.
func daysSince1970(year: Int, month: Int, day: Int) -> Int {
  let shiftedYear = month <= 2 ? year - 1 : year
  let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
  let yearOfEra = shiftedYear - era * 400
  let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
  let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

func daysInMonth(_ month: Int, of year: Int) -> Int {
  switch month {
  case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
  case 4, 6, 9, 11: 30
  default: 31
  }
}

private func pad(_ value: Int, _ width: Int) -> String {
  let digits = String(value)
  return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
