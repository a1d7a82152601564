import Glibc

/// The monotonic clock's time `seconds` from now, as `pthread_cond_timedwait` wants it for a
/// condition set to CLOCK_MONOTONIC (wall-clock changes must not move a deadline).
public func monotonicTime(after seconds: Double) -> timespec {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  let whole = Int(seconds)
  var nanoseconds = now.tv_nsec + Int((seconds - Double(whole)) * 1e9)
  var secondsPart = now.tv_sec + whole
  if nanoseconds >= 1_000_000_000 {
    nanoseconds -= 1_000_000_000
    secondsPart += 1
  }
  return timespec(tv_sec: secondsPart, tv_nsec: nanoseconds)
}

/// The wall clock: whole seconds since 1970 (UTC).
public func wallClockSeconds() -> Int64 {
  var spec = timespec()
  clock_gettime(CLOCK_REALTIME, &spec)
  return Int64(spec.tv_sec)
}

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
