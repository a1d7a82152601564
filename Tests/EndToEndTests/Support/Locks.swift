import Foundation
import Glibc

/// An exclusive flock held by the test process, as another `accounts` writer would hold it.
final class HeldLock {
  private var descriptor: Int32

  init(_ path: String) throws {
    descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else { throw CocoaError(.fileLocking) }
  }

  func release() {
    guard descriptor >= 0 else { return }
    close(descriptor)
    descriptor = -1
  }

  deinit { release() }
}

/// Every account's login lock held by the test process, as another `accounts` command logging
/// an account in holds its account's (SessionLocks: an open file description lock on one byte
/// of the file beside the index; this one locks the whole file).
final class HeldLoginLock {
  private var descriptor: Int32

  init(_ path: String) throws {
    descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    var request = flock()
    request.l_type = Int16(F_WRLCK)
    request.l_whence = Int16(SEEK_SET)
    request.l_start = 0
    request.l_len = 0  // to the end of the file, however long
    let setOFDLock: Int32 = 37  // F_OFD_SETLK, which Glibc's module does not export
    guard descriptor >= 0, fcntl(descriptor, setOFDLock, &request) == 0 else { throw CocoaError(.fileLocking) }
  }

  func release() {
    guard descriptor >= 0 else { return }
    close(descriptor)
    descriptor = -1
  }

  deinit { release() }
}
