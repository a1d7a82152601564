/// The rule of every store's fencing tokens: a lease's fence is one more than the account's
/// last one, or the taker's clock in milliseconds since 1970 when that is more. A store that
/// lost its counters (a Redis restarted without persistence or flushed, this machine's runtime
/// directory cleared at logout or reboot) so starts again above every fence handed out before
/// (unless leases were taken faster than one a millisecond, or the clock was set back), never
/// at 1.
///
/// A fence is at most `largest`: what a JSON reader (a double) and Redis's Lua read exactly. A
/// store holding a counter at it, or one it cannot read, leases that account no more (its
/// counter was planted: no account takes 2^53 leases).
public enum LeaseFence {
  /// 2^53 - 1.
  public static let largest: UInt64 = 9_007_199_254_740_991

  /// The least fence of a lease taken at `wallClockMilliseconds` (since 1970).
  public static func floor(wallClockMilliseconds: Int64) -> UInt64 {
    min(UInt64(max(wallClockMilliseconds, 0)), largest)
  }

  /// The fence after `last` (0: none) for a lease taken at `floor`; nil past `largest`.
  public static func next(after last: UInt64, floor: UInt64) -> UInt64? {
    guard last < largest else { return nil }
    return min(max(last + 1, floor), largest)
  }

  /// Whether a store may hand out, or a reader take, `fence`.
  public static func isValid(_ fence: UInt64) -> Bool { fence >= 1 && fence <= largest }
}
