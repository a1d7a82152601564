import AccountsContract
import Foundation
import AccountsCore
import AccountsSystem
import SecretMemory

/// An in-memory Secret Service: items by key, a log of calls, and faults to inject. The
/// end-to-end tests run the same scenarios against a real keyring. Like the real store, one
/// call at a time whatever the thread (a recursive lock: a hook may run another command's step
/// on the same thread).
public final class FakeSecretStore: SecretStore, @unchecked Sendable {
  private let serial = NSRecursiveLock()

  public var items: [SecretKey: [UInt8]] = [:]
  /// "store alice@corp password", "delete ...", "deleteAll alice@corp", "exists ...", "lookup ...",
  /// "lookupAll token"
  public private(set) var calls: [String] = []
  /// The error the next call of an operation ("store", "delete", "deleteAll", "exists", "lookup",
  /// "lookupAll") throws, once.
  public var failNext: [String: SecretStoreError] = [:]
  /// The error every call of an operation throws (a keyring that stays silent), after `failNext`.
  public var failAlways: [String: SecretStoreError] = [:]
  /// A store that times out but lands anyway (what a provider that was slow does).
  public var storeTimesOutButLands = false
  /// Called during each store, after the item is in place: a test sabotages the index here.
  public var duringStore: (() -> Void)?
  /// Called during each delete, before the item goes.
  public var duringDelete: (() -> Void)?
  /// Called during each lookup, before the item is read: a test runs another command's step here.
  public var duringLookup: ((SecretKey) -> Void)?
  /// Called during each lookupAll, before the items are read.
  public var beforeLookupAll: (() -> Void)?
  /// Called during each lookupAll, once the items are read and before they are returned.
  public var afterLookupAll: (() -> Void)?
  /// The provider the fake claims to be.
  public var provider: String? = "fake"

  public init() {}

  /// The item of `key` as text, nil when there is none.
  public func text(_ key: SecretKey) -> String? { items[key].map { String(decoding: $0, as: UTF8.self) } }

  private func fault(_ operation: String) throws(SecretStoreError) {
    if let error = failNext.removeValue(forKey: operation) ?? failAlways[operation] { throw error }
  }

  private func describe(_ key: SecretKey) -> String { "\(key.account)@\(key.backend) \(key.kind.attributeValue)" }

  public func store(_ secret: SecretBytes, for key: SecretKey) throws {
    try serial.withLock {
      calls.append("store \(describe(key))")
      try fault("store")
      items[key] = secret.withUnsafeBytes { Array($0) }
      duringStore?()
      if storeTimesOutButLands { throw SecretStoreError.timedOut(operation: "store", seconds: 5) }
    }
  }

  public func lookup(_ key: SecretKey) throws -> SecretBytes? {
    try serial.withLock {
      calls.append("lookup \(describe(key))")
      try fault("lookup")
      duringLookup?(key)
      guard var bytes = items[key] else { return nil }
      return SecretBytes(consuming: &bytes)
    }
  }

  public func lookupAll(kind: SecretKind) throws -> [SecretKey: SecretBytes] {
    try serial.withLock {
      calls.append("lookupAll \(kind.attributeValue)")
      try fault("lookupAll")
      beforeLookupAll?()
      var found: [SecretKey: SecretBytes] = [:]
      for (key, value) in items where key.kind == kind {
        var bytes = value
        found[key] = SecretBytes(consuming: &bytes)
      }
      afterLookupAll?()
      return found
    }
  }

  public func kinds(backend: String, account: String) throws -> [SecretKind] {
    try serial.withLock {
      calls.append("kinds \(account)@\(backend)")
      try fault("kinds")
      return items.keys.filter { $0.backend == backend && $0.account == account }.map(\.kind)
    }
  }

  public func delete(_ key: SecretKey) throws {
    try serial.withLock {
      calls.append("delete \(describe(key))")
      try fault("delete")
      duringDelete?()
      items[key] = nil
    }
  }

  public func deleteAll(backend: String, account: String) throws {
    try serial.withLock {
      calls.append("deleteAll \(account)@\(backend)")
      try fault("deleteAll")
      items = items.filter { !($0.key.backend == backend && $0.key.account == account) }
    }
  }

  public func deleteSettings(backend: String) throws {
    try serial.withLock {
      calls.append("deleteSettings \(backend)")
      try fault("deleteSettings")
      items = items.filter { !($0.key.backend == backend && $0.key.account.isEmpty) }
    }
  }

  public func providerName() throws -> String? {
    try serial.withLock {
      calls.append("providerName")
      try fault("providerName")
      return provider
    }
  }

  public func lock() throws -> String { "Fake" }

  public func report() throws -> SecretServiceReport {
    SecretServiceReport(provider: "fake", providerProcessID: nil, collection: "Fake", collectionLocked: false)
  }
}
