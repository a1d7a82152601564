import Glibc

/// Calls `call` again for as long as it fails with EINTR: the one loop over system calls a
/// signal interrupts. `call` follows the system calls' convention, -1 with errno set on
/// failure; any other failure is thrown as its `Errno`.
@inlinable
public func retryingInterrupts<Result: BinaryInteger>(_ call: () -> Result) throws(Errno) -> Result {
  while true {
    let result = call()
    if result != -1 { return result }
    let code = errno
    if code != EINTR { throw Errno(code) }
  }
}

/// Waits for the child `pid` to end and returns its wait status (waitpid(2), over signals).
@discardableResult
public func waitForChild(_ pid: pid_t) throws(Errno) -> Int32 {
  var status: Int32 = 0
  _ = try retryingInterrupts { waitpid(pid, &status, 0) }
  return status
}

/// Sleeps `seconds` on the monotonic clock, the whole time even when a signal comes.
public func sleep(seconds: Double) {
  guard seconds > 0 else { return }
  var left = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.towardZero)) * 1e9))
  var remaining = timespec()
  while nanosleep(&left, &remaining) != 0, errno == EINTR { left = remaining }
}
