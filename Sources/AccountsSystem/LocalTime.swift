import Glibc

/// Times for people: the local time zone (TZ), minutes. `--json` uses UTC ISO-8601 instead.
public enum LocalTime {
  /// "2026-11-23 07:00", after `prefix` ("valid until 2026-11-23 07:00": one string, built at
  /// once, for `list`'s thousands of rows).
  public static func format(secondsSince1970: Int64, after prefix: String = "") -> String {
    var seconds = time_t(clamping: secondsSince1970)
    var parts = tm()
    localtime_r(&seconds, &parts)
    let year = Int(parts.tm_year) + 1900
    guard (1000...9999).contains(year) else {
      func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
      return prefix + "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min))"
    }
    var text: [UInt8] = []
    text.reserveCapacity(prefix.utf8.count + 16)
    text.append(contentsOf: prefix.utf8)
    func put(_ value: Int, digits: Int, then separator: UInt8?) {
      var divisor = digits == 4 ? 1000 : 10
      while divisor > 0 {
        text.append(UInt8(48 + value / divisor % 10))
        divisor /= 10
      }
      if let separator { text.append(separator) }
    }
    put(year, digits: 4, then: 0x2D)
    put(Int(parts.tm_mon) + 1, digits: 2, then: 0x2D)
    put(Int(parts.tm_mday), digits: 2, then: 0x20)
    put(Int(parts.tm_hour), digits: 2, then: 0x3A)
    put(Int(parts.tm_min), digits: 2, then: nil)
    return String(decoding: text, as: UTF8.self)
  }
}
