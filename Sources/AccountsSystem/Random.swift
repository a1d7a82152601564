import CAccountsSystem
import Glibc

/// Fills `buffer` from the kernel's random pool (getrandom(2)), over short reads and signals:
/// the one source of randomness (lease ids, adapters' nonces, key exchanges). The pool never
/// runs dry after boot; should the call fail anyway there is no safe way on.
public func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
  var filled = 0
  while filled < buffer.count {
    do throws(Errno) {
      filled += try retryingInterrupts { accounts_getrandom(buffer.baseAddress! + filled, buffer.count - filled) }
    } catch {
      fatalError("getrandom failed: \(error)")
    }
  }
}

/// `count` bytes from the kernel's random pool.
public func randomBytes(count: Int) -> [UInt8] {
  var bytes = [UInt8](repeating: 0, count: count)
  bytes.withUnsafeMutableBytes { fillRandom($0) }
  return bytes
}
