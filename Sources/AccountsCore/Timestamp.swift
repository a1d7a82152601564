import Glibc

/// A point in time with one-second resolution, written as ISO-8601 UTC ("2026-11-22T07:00:00Z").
/// Foundation's Date would do, but the `list` path must not load Foundation (see bench/list).
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
  public var secondsSince1970: Int64

  public init(secondsSince1970: Int64) {
    self.secondsSince1970 = secondsSince1970
  }

  /// The current wall-clock time.
  public static func now() -> Timestamp {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Timestamp(secondsSince1970: Int64(spec.tv_sec))
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
    var seconds = time_t(clamping: secondsSince1970)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return
      "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
      + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))Z"
  }

  /// Parses "YYYY-MM-DDTHH:MM:SS" followed by an optional fraction (dropped) and "Z" or
  /// "+HH:MM" / "-HH:MM". Nil for anything else, including impossible dates.
  public init?(iso8601 text: String) {
    let bytes = Array(text.utf8)
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
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
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
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    let seconds = timegm(&parts)
    // timegm normalises 31 February into March; reject such dates instead.
    guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
    self.init(secondsSince1970: Int64(seconds) - Int64(offset))
  }
}

private func pad(_ value: Int, _ width: Int) -> String {
  let digits = String(value)
  return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
