import SecretMemory
import CAccountsSystem
import Glibc

/// The kernel's key retention service (keyrings(7)) through add_key(2) and keyctl(2), without
/// libkeyutils: just what a small cache needs. Every call answers nil or false on failure,
/// EPERM/ENOSYS/EACCES included (containers often block these calls): a cache that cannot be
/// used is a cache miss, never an error.
public enum KernelKeyring {
  /// A key's serial number.
  public typealias Serial = Int32

  /// The keyring of the calling user, shared by all their processes (KEY_SPEC_USER_KEYRING).
  public static let userKeyring: Serial = -4
  /// The calling thread's own keyring, gone with the thread (KEY_SPEC_THREAD_KEYRING).
  static let threadKeyring: Serial = -1

  /// Every permission for a possessor and for the owning user; nothing for group and others.
  static let ownerOnly: UInt32 = 0x3f3f_0000

  /// The largest payload of a "user" key the kernel accepts.
  public static let maximumPayload = 32_767

  private enum Operation: Int32 {
    case setPermissions = 5
    case link = 8
    case unlink = 9
    case search = 10
    case read = 11
    case setTimeout = 15
    case invalidate = 21
  }

  private static func keyctl(
    _ operation: Operation, _ a: UInt = 0, _ b: UInt = 0, _ c: UInt = 0, _ d: UInt = 0
  ) -> Int {
    accounts_keyctl(operation.rawValue, a, b, c, d)
  }

  private static func argument(_ serial: Serial) -> UInt { UInt(bitPattern: Int(serial)) }

  /// The key of `type` ("user", "keyring") named `description`, found in `keyring` or any
  /// keyring linked below it; nil when there is none (or it cannot be searched).
  public static func search(type: String, description: String, in keyring: Serial = userKeyring) -> Serial? {
    let found = type.withCString { type in
      description.withCString { description in
        keyctl(.search, argument(keyring), UInt(bitPattern: type), UInt(bitPattern: description), 0)
      }
    }
    return found > 0 ? Serial(truncatingIfNeeded: found) : nil
  }

  /// Reads the payload of `key` into `body`'s buffer, which is wiped afterwards; nil when the
  /// key cannot be read or holds more than `maximumPayload` bytes.
  public static func read<R>(_ key: Serial, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maximumPayload + 1, alignment: 8)
    defer {
      wipe(buffer)
      buffer.deallocate()
    }
    let length = keyctl(.read, argument(key), UInt(bitPattern: buffer.baseAddress!), UInt(buffer.count))
    guard length >= 0, length <= maximumPayload else { return nil }
    return body(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
  }

  /// Adds a "user" key named `description` holding `payload` to `keyring`, readable only by this
  /// user and gone after `seconds`. Neither permission nor timeout is ever missing from a key
  /// others could find: the key is made in this thread's own keyring (which ends with the
  /// thread), given both, and only then linked into `keyring`. False when any step failed.
  public static func add(
    description: String, payload: UnsafeRawBufferPointer, to keyring: Serial, seconds: UInt32
  ) -> Bool {
    guard payload.count <= maximumPayload, seconds > 0 else { return false }
    let key = accounts_add_key("user", description, payload.baseAddress, payload.count, threadKeyring)
    guard key > 0 else { return false }
    defer { _ = keyctl(.unlink, argument(key), argument(threadKeyring)) }
    guard keyctl(.setPermissions, argument(key), UInt(ownerOnly)) == 0,
      keyctl(.setTimeout, argument(key), UInt(seconds)) == 0
    else {
      _ = keyctl(.invalidate, argument(key))
      return false
    }
    guard keyctl(.link, argument(key), argument(keyring)) == 0 else {
      _ = keyctl(.invalidate, argument(key))
      return false
    }
    return true
  }

  /// Invalidates `key`: it is gone for every keyring at once.
  @discardableResult
  public static func invalidate(_ key: Serial) -> Bool { keyctl(.invalidate, argument(key)) == 0 }
}
