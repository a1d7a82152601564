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
