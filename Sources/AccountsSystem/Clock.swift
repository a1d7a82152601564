import Glibc

/// The wall clock: whole seconds since 1970 (UTC).
public func wallClockSeconds() -> Int64 {
  wallClockMilliseconds() / 1000
}

/// The wall clock in milliseconds since 1970 (UTC), for what a second is too coarse for (the
/// margin of a login's one-time code).
public func wallClockMilliseconds() -> Int64 {
  var spec = timespec()
  clock_gettime(CLOCK_REALTIME, &spec)
  return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000 + testClockOffsetMilliseconds
}

#if DEBUG
  /// End-to-end tests move this process's wall clock forward instead of sleeping through an
  /// expiry: `ACCOUNTS_TEST_CLOCK_OFFSET=SECONDS` in a debug build (the one the tests run).
  /// Release builds, the ones that ship, have no such variable.
  private let testClockOffsetMilliseconds: Int64 = {
    guard let text = getenv("ACCOUNTS_TEST_CLOCK_OFFSET"), let seconds = Int64(String(cString: text)),
      seconds.magnitude < 100 * 365 * 86_400  // a century either way; abs(Int64.min) would trap
    else { return 0 }
    return seconds * 1000
  }()
#else
  private let testClockOffsetMilliseconds: Int64 = 0
#endif

/// The monotonic clock, in nanoseconds (for budgets: wall-clock changes do not move it).
public func monotonicNanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// A moment in UTC as the calendar says it (gmtime_r): year, month 1-12, day 1-31, hour,
/// minute, second.
public func utcCalendar(_ secondsSince1970: Int64) -> (
  year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
) {
  var seconds = time_t(clamping: secondsSince1970)
  var parts = tm()
  gmtime_r(&seconds, &parts)
  return (
    Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
    Int(parts.tm_sec)
  )
}

/// The home directory the password database gives this process's user, when it is absolute.
public func passwordDatabaseHome() -> String? {
  guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
  let home = String(cString: directory)
  return home.hasPrefix("/") ? home : nil
}

/// Seconds on the monotonic clock.
public func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// This machine's host name (gethostname(2)): printable ASCII, any other byte as `?`, at most
/// 255 bytes; "localhost" when there is none.
public func hostName() -> String {
  var name = [CChar](repeating: 0, count: 256)
  guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
  let bytes = name.prefix { $0 != 0 }.prefix(255).map { UInt8(bitPattern: $0) }
  let host = String(decoding: bytes.map { (0x21..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
  return host.isEmpty ? "localhost" : host
}

/// This process's id.
public func currentProcessID() -> Int32 { getpid() }
