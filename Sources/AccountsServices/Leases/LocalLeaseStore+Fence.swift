import AccountsCore
import AccountsSystem
import Glibc

extension LocalLeaseStore {
  /// The account's next fencing token, written (fsync'd) before it is handed out; the caller
  /// holds the account's lock.
  ///
  /// It follows `LeaseFence` after the greatest of the counter, its copy at the start of the
  /// lock file, and the previous record's fence, so it never goes backwards while any of them
  /// survives, nor after all are gone (the runtime directory is cleared at logout and at
  /// reboot): the clock in milliseconds is its floor. The counter file is replaced
  /// atomically, the copy written in place: a crash tears at most the copy.
  func nextFence(
    _ paths: LeaseDirectory.Files, lock: FileDescriptor, previous: LeaseRecord?
  ) throws(FileError) -> UInt64 {
    let copy: UInt64?
    do {
      copy = try Self.readCopy(lock)
    } catch {
      throw .unreadable(path: paths.lock, errno: error.code)
    }
    let stored = try files.read(paths.fence).flatMap(LeaseRecordFile.decodeFence)
    let last = max(previous?.fence ?? 0, stored ?? 0, copy ?? 0)
    guard let fence = LeaseFence.next(after: last, floor: LeaseFence.floor(wallClockMilliseconds: fenceFloor())) else {
      throw .unwritable(path: paths.fence, errno: ERANGE)
    }
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

  /// The counter the lock file holds, when it reads as one.
  static func readCopy(_ lock: FileDescriptor) throws(Errno) -> UInt64? {
    var bytes = [UInt8](repeating: 0, count: copyLength + 1)
    let result: Result<Int, Errno> = bytes.withUnsafeMutableBytes { raw in
      Result { () throws(Errno) in try lock.read(at: 0, into: raw) }
    }
    guard try result.get() == copyLength, bytes[copyLength - 1] == 10,
      bytes[..<(copyLength - 1)].allSatisfy({ $0 >= 48 && $0 <= 57 })
    else { return nil }
    return UInt64(String(decoding: bytes[..<(copyLength - 1)], as: UTF8.self))
  }

  static func writeCopy(_ fence: UInt64, to lock: FileDescriptor) throws(Errno) {
    let digits = String(fence)
    let text = Array((String(repeating: "0", count: max(0, copyLength - 1 - digits.count)) + digits + "\n").utf8)
    let written = text.withUnsafeBytes { pwrite(lock.rawValue, $0.baseAddress, $0.count, 0) }
    guard written == text.count else { throw written < 0 ? .current : Errno(EIO) }
    guard ftruncate(lock.rawValue, off_t(text.count)) == 0 else { throw .current }
    try lock.sync()
  }
}
