import AccountsContract
import AccountsSystem
import SecretMemory
internal import CLibSecret

/// The Secret Service through libsecret: the only `SecretStore` that touches a real keyring.
///
/// Connects on first use. Every call runs under a deadline (`timeout`, from
/// ACCOUNTS_SECRET_TIMEOUT); a call that may show the keyring's own unlock prompt gets
/// `promptTimeout` instead, and only when `mayPrompt` says a person is there to answer it.
/// Without a prompt, a locked collection is reported as `.locked`, never as "no password".
public final class LibsecretStore: SecretStore {
  let timeout: Double
  let promptTimeout: Double
  let mayPrompt: Bool
  private var connected: (bus: SessionBus, service: GObjectOwner<CLibSecret.SecretService>)?

  public init(timeout: Double, promptTimeout: Double, mayPrompt: Bool) {
    self.timeout = timeout
    self.promptTimeout = promptTimeout
    self.mayPrompt = mayPrompt
  }

  /// Replaces the secret of the item named by `key` in place when there is one, else creates
  /// it. Replacing in place (Item.SetSecret) rather than storing again with replace semantics
  /// matters on KeePassXC before 2.7.6, which asks for access whenever a program replaces an
  /// item another program created; setting the secret of a found item it allows at once.
  public func store(_ secret: SecretBytes, for key: SecretKey) throws {
    let service = try connect()
    let collection = try openCollection(service)
    let existing = try search(service, key.attributes)
    if let item = existing.first {
      if isLocked(item) { try unlockItems([item], key: key) }
      try replaceSecret(of: item, with: secret, label: key.label)
      try completeAttributes(of: item, key: key)
      // Only one item may answer to a key: any other copy goes.
      for extra in existing.dropFirst() {
        _ = try withDeadline("delete a second copy of \(key.label)", seconds: timeout, tolerating: \.isNoSuchObject) {
          cancellable, error in secret_item_delete_sync(extra.pointer, cancellable, &error)
        }
      }
      return
    }
    // libsecret would create a collection, which KeePassXC answers with its new-database wizard
    // and gnome-keyring with a password prompt: neither is a store.
    guard collection != nil else { throw SecretStoreError.noCollection(provider: knownProvider()) }
    try withAttributes(key.storedAttributes) { (table) throws(SecretStoreError) in
      let stored = try secret.withUnsafeCString { (password) throws(SecretStoreError) in
        try withDeadline("store \(key.label)", seconds: timeout) { cancellable, error in
          secret_password_storev_sync(
            accountsSchema, table, nil, key.label, password, cancellable, &error)
        }
      }
      if stored == 0 { throw .failed(operation: "store \(key.label)", detail: "the keyring refused the item") }
    }
  }

  /// Item.SetSecret on an item that exists.
  private func replaceSecret(of item: GObjectOwner<SecretItem>, with secret: SecretBytes, label: String) throws(SecretStoreError) {
    let value = secret.withUnsafeBytes { bytes in
      secret_value_new(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), gssize(bytes.count), "text/plain")
    }
    guard let value else { throw .failed(operation: "store \(label)", detail: "cannot hold the secret") }
    defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
    let replaced = try withDeadline("store \(label)", seconds: timeout) { cancellable, error in
      secret_item_set_secret_sync(item.pointer, value, cancellable, &error)
    }
    if replaced == 0 { throw .failed(operation: "store \(label)", detail: "the keyring refused the new secret") }
  }

  /// Gives an item found by the schema's attributes the full set (`storedAttributes`) when it
  /// lacks some or holds another value: an item stored before password items carried
  /// `service`, `username`, `UserName` and `URL`, or whose backend's base_url changed since.
  /// Read from the cached proxy first, so an item that has them costs no D-Bus call.
  private func completeAttributes(of item: GObjectOwner<SecretItem>, key: SecretKey) throws(SecretStoreError) {
    let wanted = key.storedAttributes
    if let table = secret_item_get_attributes(item.pointer) {
      defer { g_hash_table_unref(table) }
      let complete = wanted.allSatisfy { name, value in
        name.withCString { g_hash_table_lookup(table, $0) }.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
          == value
      }
      if complete { return }
    }
    try withAttributes(wanted) { (table) throws(SecretStoreError) in
      let set = try withDeadline("store \(key.label)", seconds: timeout) { cancellable, error in
        secret_item_set_attributes_sync(item.pointer, accountsSchema, table, cancellable, &error)
      }
      if set == 0 { throw .failed(operation: "store \(key.label)", detail: "the keyring refused the attributes") }
    }
  }

  /// One search by path and one read (Service.SearchItems, then Service.GetSecrets): the calls
  /// secret-tool makes. The default collection is looked at only where it matters: first on a
  /// provider that may hide or prompt before a search (KeePassXC's UnlockBeforeSearch), else only
  /// when the search did not find a readable item (is the collection locked, or missing?).
  public func lookup(_ key: SecretKey) throws -> SecretBytes? {
    let service = try connect()
    var collection = try CollectionCheck(self, service)
    // Each round that finds an item and cannot read it means it was deleted meanwhile (a
    // logout racing this command): that is "no secret" (SPEC §8), never "locked".
    let read = try SecretReadPolicy.searching { () throws(SecretStoreError) -> SecretReadPolicy.Round<SecretBytes?> in
      let found = try searchPaths(service, key.attributes)
      var path = found.unlocked.first
      if path == nil {
        // A locked collection says so (or prompts, then this searches again).
        if try collection.checkOnce() { return .searchAgain }
        if found.locked.isEmpty { return .answered(nil) }
        // Locked items in an open collection: the provider asks before a program reads them.
        path = try unlockPaths(found.locked, label: key.label).first
      }
      if let path, let secret = try secret(at: path, label: key.label, service) { return .answered(secret) }
      return .searchAgain
    }
    return read ?? nil
  }

  public func providerName() throws -> String? {
    _ = try connect()
    return connected?.bus.provider().name
  }

  /// The service, when connected.
  var connectedService: GObjectOwner<CLibSecret.SecretService>? { connected?.service }

  /// The session bus connection (the one libsecret uses), when connected.
  var connectedConnection: OpaquePointer? { connected?.bus.connection }

  /// The provider's name for messages, when connected; nil otherwise (never a reason to fail).
  func knownProvider() -> String? {
    connected?.bus.provider().name
  }

  public func delete(_ key: SecretKey) throws {
    try deleteMatching(key.attributes, what: key.label)
  }

  public func deleteAll(backend: String, account: String) throws {
    try deleteMatching(SecretSchema.attributes(backend: backend, account: account), what: "the secrets of \(account)@\(backend)")
  }

  public func deleteSettings(backend: String) throws {
    try deleteMatching(SecretSchema.attributes(backend: backend, account: ""), what: "the secret settings of backend \(backend)")
  }

  public func lock() throws -> String {
    try lockCollections()
  }

  public func report() throws -> SecretServiceReport {
    let service = try connect()
    let provider = connected!.bus.provider()
    let collection = try defaultCollection(service)
    return SecretServiceReport(
      provider: provider.name, providerProcessID: provider.processID,
      collection: collection.map(label(of:)), collectionLocked: collection.map(isLocked))
  }

  // MARK: - The steps

  func connect() throws(SecretStoreError) -> GObjectOwner<CLibSecret.SecretService> {
    if let connected { return connected.service }
    let bus = try SessionBus.connect(timeout: timeout)
    try bus.requireProvider()
    ProviderWatch.prepare(connection: bus.connection, processID: bus.provider().processID)
    let service = try withDeadline("connect to the Secret Service", seconds: timeout) { cancellable, error in
      secret_service_get_sync(SECRET_SERVICE_NONE, cancellable, &error)
    }
    guard let service else {
      throw .noProvider(detail: "libsecret found no Secret Service")
    }
    let owner = GObjectOwner(taking: service)
    connected = (bus, owner)
    return owner
  }

  /// The items matching `attributes`, locked ones included, without their secrets.
  ///
  /// libsecret loads each item it finds; when another process deletes one in between, the
  /// whole search fails with "No such secret item". The item is gone, so searching again gives
  /// the true answer (`SecretReadPolicy.searching`: each retry means a delete finished meanwhile).
  private func search(
    _ service: GObjectOwner<CLibSecret.SecretService>, _ attributes: [(String, String)]
  ) throws(SecretStoreError) -> [GObjectOwner<SecretItem>] {
    let items = try withAttributes(attributes) { (table) throws(SecretStoreError) in
      try SecretReadPolicy.searching { () throws(SecretStoreError) -> SecretReadPolicy.Round<[GObjectOwner<SecretItem>]> in
        var vanished = false
        let list = try withDeadline(
          "search the keyring", seconds: timeout,
          tolerating: { vanished = $0.isNoSuchObject; return vanished }
        ) { cancellable, error in
          secret_service_search_sync(
            service.pointer, accountsSchema, table, SECRET_SEARCH_ALL, cancellable, &error)
        }
        return vanished ? .searchAgain : .answered(takeObjects(list, as: SecretItem.self))
      }
    }
    guard let items else { throw .keptVanishing(operation: "search the keyring") }
    return items
  }

  /// Deletes every item matching `attributes`; an item another process deleted first counts as
  /// deleted (SPEC §8).
  private func deleteMatching(_ attributes: [(String, String)], what: String) throws(SecretStoreError) {
    let service = try connect()
    _ = try openCollection(service)
    let found = try searchPaths(service, attributes)
    if !found.locked.isEmpty {
      // The collection is open: the provider asks before a program touches these entries.
      _ = try unlockPaths(found.locked, label: what, asking: "delete")
    }
    for path in found.unlocked + found.locked {
      _ = try withDeadline("delete \(what)", seconds: timeout, tolerating: \.isNoSuchObject) { cancellable, error in
        secret_service_delete_item_dbus_path_sync(service.pointer, path, cancellable, &error)
      }
    }
  }

  /// The collection behind the `default` alias, where new items go; nil when there is none.
  func defaultCollection(
    _ service: GObjectOwner<CLibSecret.SecretService>
  ) throws(SecretStoreError) -> GObjectOwner<SecretCollection>? {
    let collection = try withDeadline("find the default collection", seconds: timeout) { cancellable, error in
      secret_collection_for_alias_sync(service.pointer, "default", SECRET_COLLECTION_NONE, cancellable, &error)
    }
    return collection.map { GObjectOwner(taking: $0) }
  }

  /// The default collection, unlocked, checked before anything is searched: a provider that
  /// prompts to unlock before a search (KeePassXC's UnlockBeforeSearch) would otherwise make the
  /// search wait for that prompt. Nil when there is none.
  func openCollection(
    _ service: GObjectOwner<CLibSecret.SecretService>
  ) throws(SecretStoreError) -> GObjectOwner<SecretCollection>? {
    guard let collection = try defaultCollection(service) else { return nil }
    if isLocked(collection) {
      let name = label(of: collection)
      guard mayPrompt else { throw .locked(collection: name, provider: knownProvider()) }
      try unlock([collection], label: "'\(name)'", asking: "unlock")
    }
    return collection
  }

  /// Items that stay locked in an unlocked collection: the provider asks before a program reads
  /// one (KeePassXC's access confirmation). Asked for when someone can answer.
  private func unlockItems(_ items: [GObjectOwner<SecretItem>], key: SecretKey) throws(SecretStoreError) {
    try unlockItems(items, label: key.label)
  }

  /// `unlockItems` for items named by `label` (one item's label, or what a group of them is).
  private func unlockItems(_ items: [GObjectOwner<SecretItem>], label: String) throws(SecretStoreError) {
    guard mayPrompt else { throw .accessNotGranted(item: label, provider: knownProvider()) }
    do {
      try unlock(items, label: label, asking: "access")
    } catch .promptDismissed {
      throw .accessNotGranted(item: label, provider: knownProvider())
    }
  }

  /// Unlocks `objects` with the provider's own prompt, waiting `promptTimeout` for a person.
  private func unlock<Object>(_ objects: [GObjectOwner<Object>], label: String, asking: String) throws(SecretStoreError) {
    guard mayPrompt else { throw .locked(collection: label, provider: knownProvider()) }
    let service = connected!.service
    let count = try withBorrowedList(objects) { (list) throws(SecretStoreError) in
      try withDeadline("\(asking) \(label)", seconds: promptTimeout, prompt: true, collection: label) { cancellable, error in
        secret_service_unlock_sync(service.pointer, list, cancellable, nil, &error)
      }
    }
    if count < 1 { throw .promptDismissed(operation: "\(asking) \(label)") }
  }
}

// Property reads from libsecret's cached proxies: no D-Bus round trip, no deadline needed.

private func isLocked(_ collection: GObjectOwner<SecretCollection>) -> Bool {
  secret_collection_get_locked(collection.pointer) != 0
}

private func isLocked(_ item: GObjectOwner<SecretItem>) -> Bool {
  secret_item_get_locked(item.pointer) != 0
}

/// The collection's label. KeePassXC gives an unlocked database without a name an empty label,
/// and a locked one the name of its file; the last part of the object path is that file's name
/// in both states, so an empty label reads as that (the same name before and after `lock`).
func label(of collection: GObjectOwner<SecretCollection>) -> String {
  if let text = secret_collection_get_label(collection.pointer) {
    defer { g_free(text) }
    let label = String(cString: text)
    if !label.isEmpty { return label }
  }
  let path = g_dbus_proxy_get_object_path(UnsafeMutableRawPointer(collection.pointer).assumingMemoryBound(to: GDBusProxy.self))
  let name = path.map { String(cString: $0) }.flatMap { $0.split(separator: "/").last.map(String.init) }
  return name ?? "default"
}
