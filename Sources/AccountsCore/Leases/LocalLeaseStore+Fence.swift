import AccountsSystem
import Glibc

extension LocalLeaseStore {
  /// The account's next fencing token, written (fsync'd) before it is handed out; the caller
  /// holds the account's lock.
  ///
  /// It is one more than the greatest of the counter and the previous record's fence. The
  /// counter never goes backwards, even when it is lost: the lock file gets a first byte once
  /// a counter exists, so a counter missing beside a marked lock file, or one that does not
  /// read, was lost. Then the count restarts above the clock in milliseconds, more than any
  /// counter could have reached unless leases were taken faster than a thousand a second on
  /// average, or the clock was set back.
  func nextFence(
    _ paths: LeaseDirectory.Files, lock: FileDescriptor, previous: LeaseRecord?, now: Timestamp
  ) throws(FileError) -> UInt64 {
    let marked: Bool
    do {
      marked = try lock.status().st_size > 0
    } catch {
      throw .unreadable(path: paths.lock, errno: error.code)
    }
    let bytes = try files.read(paths.fence)
    var floor = previous?.fence ?? 0
    if let stored = bytes.flatMap(LeaseRecordFile.decodeFence) {
      floor = max(floor, stored)
    } else if marked || bytes != nil {
      floor = max(floor, Self.recoveryFloor(now))
    }
    let fence = floor + 1
    try files.replace(paths.fence, with: LeaseRecordFile.encodeFence(fence))
    if !marked {
      let written = pwrite(lock.rawValue, "1", 1, 0)
      guard written == 1 else { throw .unwritable(path: paths.lock, errno: written < 0 ? errno : EIO) }
      do {
        try lock.sync()
      } catch {
        throw .unwritable(path: paths.lock, errno: error.code)
      }
    }
    return fence
  }

  /// Where a lost counter restarts: the clock in milliseconds.
  static func recoveryFloor(_ now: Timestamp) -> UInt64 {
    UInt64(max(now.secondsSince1970, 0)) * 1000
  }

  /// A new lease id: 16 characters of lowercase base32 (80 bits from `random`).
  func newLeaseID() -> String {
    let bytes = random(10)
    var bits: UInt64 = 0
    var pending = 0
    var text: [UInt8] = []
    for byte in bytes {
      bits = bits << 8 | UInt64(byte)
      pending += 8
      while pending >= 5 {
        pending -= 5
        text.append(Self.leaseIDAlphabet[Int(bits >> UInt64(pending) & 31)])
      }
    }
    return String(decoding: text, as: UTF8.self)
  }

  static let leaseIDAlphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

  /// Whether `text` has the shape of a lease id (so `release` never looks for anything else).
  public static func isLeaseID(_ text: String) -> Bool {
    text.utf8.count == 16 && text.utf8.allSatisfy(leaseIDAlphabet.contains)
  }
}
