import AccountsContract
import AccountsSystem
internal import CLibSecret

/// One read's look at the default collection, as `SecretReadPolicy` has it: before the first
/// search from a provider that needs it, else at most once, when a search leaves open whether
/// the collection is locked or missing. It must exist; a locked one is unlocked with the
/// provider's prompt when someone can answer it, else the read fails as `.locked`.
struct CollectionCheck {
  private let store: LibsecretStore
  private let service: GObjectOwner<CLibSecret.SecretService>
  private var done = false

  init(_ store: LibsecretStore, _ service: GObjectOwner<CLibSecret.SecretService>) throws(SecretStoreError) {
    self.store = store
    self.service = service
    if SecretReadPolicy.checksCollectionBeforeSearch(provider: store.knownProvider()) { _ = try checkOnce() }
  }

  /// Checks the collection unless this read already did: true when it did just now (search
  /// again: what a locked collection hid may show now).
  mutating func checkOnce() throws(SecretStoreError) -> Bool {
    guard !done else { return false }
    guard try store.openCollection(service) != nil else { throw .noCollection(provider: store.knownProvider()) }
    done = true
    return true
  }
}

extension SecretStoreError {
  /// A read that searched again as often as `SecretReadPolicy` allows, and each time an item
  /// found was deleted before it could be read.
  static func keptVanishing(operation: String) -> SecretStoreError {
    .failed(operation: operation, detail: "items kept vanishing while being read")
  }
}
