/// A wall-clock time: the fields of a moment in some UTC offset, computed with Howard Hinnant's
/// `civil_from_days` rather than Foundation, which would cost each adapter its start-up time
/// and several megabytes.
public struct CivilTime: Equatable, Sendable {
  public var year: Int64
  public var month: Int64
  public var day: Int64
  public var hour: Int64
  public var minute: Int64
  public var second: Int64

  /// The moments this type formats: years 0001 to 9999, so the output stays `yyyy-...`.
  public static let supportedSeconds: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

  /// The wall-clock time at `seconds` since the epoch in a zone `offset` seconds east of UTC,
  /// or nil when that falls outside years 0001 to 9999 (a broken clock, not a date to send).
  public init?(seconds: Int64, offset: Int32) {
    let (local, overflow) = seconds.addingReportingOverflow(Int64(offset))
    guard !overflow, Self.supportedSeconds.contains(local) else { return nil }
    let days = Self.floorDivide(local, 86_400)
    let secondOfDay = local - days * 86_400
    hour = secondOfDay / 3600
    minute = secondOfDay % 3600 / 60
    second = secondOfDay % 60

    let shifted = days + 719_468
    let era = Self.floorDivide(shifted, 146_097)
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthFromMarch = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
    month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  }

  /// `yyyy-MM-ddHH:mm`, the hmac adapter's minute (no separator between day and hour).
  public var hmacMinute: String {
    "\(pad(year, 4))-\(pad(month))-\(pad(day))\(pad(hour)):\(pad(minute))"
  }

  /// `yyyy-MM-dd-HH:mm:ss`, the signed adapter's timestamp.
  public var signedTimestamp: String {
    "\(pad(year, 4))-\(pad(month))-\(pad(day))-\(pad(hour)):\(pad(minute)):\(pad(second))"
  }

  private func pad(_ value: Int64, _ width: Int = 2) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(width - digits.count, 0)) + digits
  }

  private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return value % divisor < 0 ? quotient - 1 : quotient
  }
}

/// The `time_zone` setting: `local`, `UTC`, or a fixed `+HH:MM` / `-HH:MM`.
public enum TimeZoneSetting: Equatable, Sendable {
  /// The user's zone, from the host's `local_utc_offset`.
  case local
  /// A fixed offset in seconds east of UTC (`UTC` is 0).
  case fixed(Int32)

  /// The accepted spellings, for messages.
  public static let accepted = ["local", "UTC", "+HH:MM", "-HH:MM"]

  /// Parses `local`, `UTC` (any case) or `±HH:MM` with HH up to 23 and MM up to 59; nil
  /// otherwise.
  public init?(_ text: String) {
    if text == "local" {
      self = .local
      return
    }
    if text.uppercased() == "UTC" {
      self = .fixed(0)
      return
    }
    let bytes = Array(text.utf8)
    guard bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
      bytes[3] == UInt8(ascii: ":"),
      let hours = Self.twoDigits(bytes[1], bytes[2]), hours <= 23,
      let minutes = Self.twoDigits(bytes[4], bytes[5]), minutes <= 59
    else { return nil }
    let seconds = Int32(hours * 3600 + minutes * 60)
    self = .fixed(bytes[0] == UInt8(ascii: "-") ? -seconds : seconds)
  }

  /// The offset east of UTC at `time`.
  public func offset(at time: Int64, host: any HostServices) throws(AdapterError) -> Int32 {
    switch self {
    case .local:
      let offset = try host.localUTCOffset(at: time)
      // Real zones are within a day of UTC; anything else is a broken host.
      guard (-86_400...86_400).contains(offset) else {
        throw AdapterError("the host's local UTC offset \(offset) s is not a real time zone")
      }
      return offset
    case .fixed(let offset):
      return offset
    }
  }

  private static func twoDigits(_ tens: UInt8, _ ones: UInt8) -> Int? {
    let zero = UInt8(ascii: "0")
    guard (zero...zero + 9).contains(tens), (zero...zero + 9).contains(ones) else { return nil }
    return Int(tens - zero) * 10 + Int(ones - zero)
  }
}

extension HostServices {
  /// The wall-clock time now in `zone`, or an error when the host's clock is out of range.
  public func civilTimeNow(in zone: TimeZoneSetting) throws(AdapterError) -> CivilTime {
    let now = try now()
    let offset = try zone.offset(at: now, host: self)
    guard let time = CivilTime(seconds: now, offset: offset) else {
      throw AdapterError("the host's clock says \(now) s since 1970, outside years 0001 to 9999")
    }
    return time
  }
}
