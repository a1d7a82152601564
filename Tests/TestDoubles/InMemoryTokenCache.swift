import AccountsContract
import AccountsCore
import SecretMemory

/// A token cache that keeps its entries in memory and logs what it is told to forget: what the
/// kernel keyring's cache (AccountsServices' `KernelTokenCache`) does, without the keyring and
/// its lock check, which run end to end.
public final class InMemoryTokenCache: TokenCache {
  /// Each account's entry: the identity it was kept under, the token's bytes, for how long.
  public var entries: [AccountID: (identity: String, token: [UInt8], seconds: Int)] = [:]
  /// Every account `forget` was given, in order.
  public var forgotten: [AccountID] = []

  public init() {}

  public func token(for id: AccountID, identity: String) throws -> SecretBytes? {
    guard var entry = entries[id], entry.identity == identity else { return nil }
    return SecretBytes(consuming: &entry.token)
  }

  public func keep(_ token: SecretBytes, for id: AccountID, identity: String, seconds: Int) {
    entries[id] = (identity, token.withUnsafeBytes { Array($0) }, seconds)
  }

  public func forget(_ ids: [AccountID]) {
    forgotten += ids
    for id in ids { entries[id] = nil }
  }
}
