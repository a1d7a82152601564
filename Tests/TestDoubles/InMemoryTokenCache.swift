import AccountsContract
import AccountsCore
import SecretMemory
import Synchronization

/// A token cache that keeps its entries in memory and logs what it is told to forget: what the
/// kernel keyring's cache (AccountsServices' `KernelTokenCache`) does, without the keyring and
/// its lock check, which run end to end. Safe to share between a command's threads.
public final class InMemoryTokenCache: TokenCache, @unchecked Sendable {
  public typealias Entry = (identity: String, token: [UInt8], seconds: Int)
  private let state = Mutex((entries: [AccountID: Entry](), forgotten: [AccountID]()))

  public init() {}

  /// Each account's entry: the identity it was kept under, the token's bytes, for how long.
  public var entries: [AccountID: Entry] {
    get { state.withLock { $0.entries } }
    set { state.withLock { $0.entries = newValue } }
  }

  /// Every account `forget` was given, in order.
  public var forgotten: [AccountID] {
    get { state.withLock { $0.forgotten } }
    set { state.withLock { $0.forgotten = newValue } }
  }

  public func token(for id: AccountID, identity: String) throws -> SecretBytes? {
    guard var entry = entries[id], entry.identity == identity else { return nil }
    return SecretBytes(consuming: &entry.token)
  }

  public func keep(_ token: SecretBytes, for id: AccountID, identity: String, seconds: Int) {
    let bytes = token.withUnsafeBytes { Array($0) }
    state.withLock { $0.entries[id] = (identity, bytes, seconds) }
  }

  public func forget(_ ids: [AccountID]) {
    state.withLock { state in
      state.forgotten += ids
      for id in ids { state.entries[id] = nil }
    }
  }
}
