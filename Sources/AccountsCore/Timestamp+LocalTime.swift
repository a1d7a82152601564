import AccountsSystem

extension LocalTime {
  /// "2026-11-23 07:00" in the local time zone, after `prefix`.
  public static func format(_ time: Timestamp, after prefix: String = "") -> String {
    format(secondsSince1970: time.secondsSince1970, after: prefix)
  }
}
