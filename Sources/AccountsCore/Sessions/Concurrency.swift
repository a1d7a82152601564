import AccountsContract
import AccountsSystem
import SecretMemory
import Synchronization

/// A Secret Service reached by one thread at a time, connected on first use: the library's
/// calls are made for one caller, and the keyring daemon serialises them anyway.
public final class SerializedSecretStore: SecretStore, @unchecked Sendable {
  /// The store, connected on first use by the one cache that keeps it (the environment's).
  private let connect: () throws -> SecretStore
  /// Held around every call to the store: what it guards is the store itself.
  private let mutex = Mutex(())

  public init(connect: @escaping () throws -> SecretStore) { self.connect = connect }

  public convenience init(_ store: SecretStore) { self.init(connect: { store }) }

  private var inner: SecretStore {
    get throws { try connect() }
  }

  public func store(_ secret: SecretBytes, for key: SecretKey) throws {
    try mutex.withLock { _ in try inner.store(secret, for: key) }
  }
  public func lookup(_ key: SecretKey) throws -> SecretBytes? { try mutex.withLock { _ in try inner.lookup(key) } }
  public func lookupAll(kind: SecretKind) throws -> [SecretKey: SecretBytes] {
    try mutex.withLock { _ in try inner.lookupAll(kind: kind) }
  }
  public func kinds(backend: String, account: String) throws -> [SecretKind] {
    try mutex.withLock { _ in try inner.kinds(backend: backend, account: account) }
  }
  public func providerName() throws -> String? { try mutex.withLock { _ in try inner.providerName() } }
  public func delete(_ key: SecretKey) throws { try mutex.withLock { _ in try inner.delete(key) } }
  public func deleteAll(backend: String, account: String) throws {
    try mutex.withLock { _ in try inner.deleteAll(backend: backend, account: account) }
  }
  public func deleteSettings(backend: String) throws {
    try mutex.withLock { _ in try inner.deleteSettings(backend: backend) }
  }
  public func lock() throws -> String { try mutex.withLock { _ in try inner.lock() } }
  public func report() throws -> SecretServiceReport { try mutex.withLock { _ in try inner.report() } }
}
