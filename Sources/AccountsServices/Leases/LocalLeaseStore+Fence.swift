import AccountsCore
import AccountsSystem
import Glibc

extension LocalLeaseStore {
  /// The account's next fencing token, written (fsync'd) before it is handed out; the caller
  /// holds the account's lock.
  ///
  /// It is one more than the greatest of the counter, its copy at the start of the lock file,
  /// and the previous record's fence, so it never goes backwards while any of them survives.
  /// The counter file is replaced atomically, the copy written in place: a crash tears at most
  /// the copy. When both are lost or unreadable although one existed (the lock file is not
  /// empty, or the counter file is there), the count restarts above the clock in milliseconds:
  /// more than any counter could have reached unless leases were taken faster than a thousand
  /// a second on average, or the clock was set back.
  func nextFence(
    _ paths: LeaseDirectory.Files, lock: FileDescriptor, previous: LeaseRecord?, now: Timestamp
  ) throws(FileError) -> UInt64 {
    let copy: (exists: Bool, value: UInt64?)
    do {
      copy = try Self.readCopy(lock)
    } catch {
      throw .unreadable(path: paths.lock, errno: error.code)
    }
    let bytes = try files.read(paths.fence)
    let stored = bytes.flatMap(LeaseRecordFile.decodeFence)
    var floor = max(previous?.fence ?? 0, stored ?? 0, copy.value ?? 0)
    if stored == nil, copy.value == nil, copy.exists || bytes != nil {
      floor = max(floor, Self.recoveryFloor(now))
    }
    let fence = floor + 1
    try files.replace(paths.fence, with: LeaseRecordFile.encodeFence(fence))
    do {
      try Self.writeCopy(fence, to: lock)
    } catch {
      throw .unwritable(path: paths.lock, errno: error.code)
    }
    return fence
  }

  /// The copy of the counter in the lock file: twenty decimal digits and a newline.
  static let copyLength = 21

  /// Whether the lock file holds anything, and the counter when it reads as one.
  static func readCopy(_ lock: FileDescriptor) throws(Errno) -> (exists: Bool, value: UInt64?) {
    var bytes = [UInt8](repeating: 0, count: copyLength + 1)
    let result: Result<Int, Errno> = bytes.withUnsafeMutableBytes { raw in
      Result { () throws(Errno) in try lock.read(at: 0, into: raw) }
    }
    let count = try result.get()
    guard count > 0 else { return (false, nil) }
    guard count == copyLength, bytes[copyLength - 1] == 10,
      bytes[..<(copyLength - 1)].allSatisfy({ $0 >= 48 && $0 <= 57 })
    else { return (true, nil) }
    return (true, UInt64(String(decoding: bytes[..<(copyLength - 1)], as: UTF8.self)))
  }

  static func writeCopy(_ fence: UInt64, to lock: FileDescriptor) throws(Errno) {
    let digits = String(fence)
    let text = Array((String(repeating: "0", count: max(0, copyLength - 1 - digits.count)) + digits + "\n").utf8)
    let written = text.withUnsafeBytes { pwrite(lock.rawValue, $0.baseAddress, $0.count, 0) }
    guard written == text.count else { throw written < 0 ? .current : Errno(EIO) }
    guard ftruncate(lock.rawValue, off_t(text.count)) == 0 else { throw .current }
    try lock.sync()
  }

  /// Where a lost counter restarts: the clock in milliseconds.
  static func recoveryFloor(_ now: Timestamp) -> UInt64 {
    UInt64(max(now.secondsSince1970, 0)) * 1000
  }
}

