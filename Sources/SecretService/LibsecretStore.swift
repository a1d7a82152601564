import AccountsCore
internal import CLibSecret

/// The Secret Service through libsecret: the only `SecretStore` that touches a real keyring.
///
/// Connects on first use. Every call runs under a deadline (`timeout`, from
/// ACCOUNTS_SECRET_TIMEOUT); a call that may show the keyring's own unlock prompt gets
/// `promptTimeout` instead, and only when `mayPrompt` says a person is there to answer it.
/// Without a prompt, a locked collection is reported as `.locked`, never as "no password".
public final class LibsecretStore: SecretStore {
  private let timeout: Double
  private let promptTimeout: Double
  private let mayPrompt: Bool
  private var connected: (bus: SessionBus, service: GObjectOwner<CLibSecret.SecretService>)?

  public init(timeout: Double, promptTimeout: Double, mayPrompt: Bool) {
    self.timeout = timeout
    self.promptTimeout = promptTimeout
    self.mayPrompt = mayPrompt
  }

  public func store(_ secret: SecretBytes, for key: SecretKey) throws {
    let service = try connect()
    // Storing into a locked collection makes libsecret prompt; decide about that ourselves.
    if let collection = try defaultCollection(service), isLocked(collection) {
      try unlock([collection], label: label(of: collection))
    }
    try withAttributes(attributes(of: key)) { (table) throws(SecretStoreError) in
      let stored = try secret.withUnsafeCString { (password) throws(SecretStoreError) in
        try withDeadline("store \(key.label)", seconds: timeout) { cancellable, error in
          secret_password_storev_sync(
            accounts_secret_schema(), table, nil, key.label, password, cancellable, &error)
        }
      }
      if stored == 0 { throw .failed(operation: "store \(key.label)", detail: "the keyring refused the item") }
    }
  }

  public func lookup(_ key: SecretKey) throws -> SecretBytes? {
    let service = try connect()
    let items = try search(service, attributes(of: key))
    guard !items.isEmpty else {
      // Some providers hide the items of a locked collection: "locked" beats "no password".
      if let collection = try defaultCollection(service), isLocked(collection) {
        throw SecretStoreError.locked(collection: label(of: collection))
      }
      return nil
    }
    if !items.contains(where: { !isLocked($0) }) {
      try unlock(items, label: try defaultCollection(service).map(label(of:)) ?? "default")
    }
    guard let item = items.first(where: { !isLocked($0) }) else { return nil }
    _ = try withDeadline("read \(key.label)", seconds: timeout) { cancellable, error in
      secret_item_load_secret_sync(item.pointer, cancellable, &error)
    }
    guard let value = secret_item_get_secret(item.pointer) else { return nil }
    defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
    var length: gsize = 0
    let bytes = secret_value_get(value, &length)
    return SecretBytes(copying: UnsafeRawBufferPointer(start: bytes, count: Int(length)))
  }

  public func kinds(backend: String, account: String) throws -> [SecretKind] {
    let service = try connect()
    let items = try search(service, [("backend", backend), ("account", account)])
    if items.isEmpty, let collection = try defaultCollection(service), isLocked(collection) {
      throw SecretStoreError.locked(collection: label(of: collection))
    }
    return items.compactMap { item in
      // Attributes are not secret: a locked item shows them too.
      guard let table = secret_item_get_attributes(item.pointer) else { return nil }
      defer { g_hash_table_unref(table) }
      guard let value = g_hash_table_lookup(table, "kind") else { return nil }
      return SecretKind(attributeValue: String(cString: value.assumingMemoryBound(to: CChar.self)))
    }
  }

  public func delete(_ key: SecretKey) throws {
    try deleteMatching(attributes(of: key), what: key.label)
  }

  public func deleteAll(backend: String, account: String) throws {
    try deleteMatching([("backend", backend), ("account", account)], what: "the secrets of \(account)@\(backend)")
  }

  public func deleteSettings(backend: String) throws {
    try deleteMatching([("backend", backend), ("account", "")], what: "the secret settings of backend \(backend)")
  }

  public func lock() throws -> String {
    let service = try connect()
    guard let collection = try defaultCollection(service) else {
      throw SecretStoreError.failed(operation: "lock", detail: "the keyring has no default collection")
    }
    let name = label(of: collection)
    let count = try withBorrowedList([collection]) { (list) throws(SecretStoreError) in
      try withDeadline("lock '\(name)'", seconds: timeout, collection: name) { cancellable, error in
        secret_service_lock_sync(service.pointer, list, cancellable, nil, &error)
      }
    }
    if count < 1, !isLocked(collection) {
      throw SecretStoreError.failed(operation: "lock '\(name)'", detail: "the keyring did not lock it")
    }
    return name
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

  private func connect() throws(SecretStoreError) -> GObjectOwner<CLibSecret.SecretService> {
    if let connected { return connected.service }
    let bus = try SessionBus.connect(timeout: timeout)
    try bus.requireProvider()
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
  /// the true answer (a few times at most: each retry means a delete finished meanwhile).
  private func search(
    _ service: GObjectOwner<CLibSecret.SecretService>, _ attributes: [(String, String)]
  ) throws(SecretStoreError) -> [GObjectOwner<SecretItem>] {
    try withAttributes(attributes) { (table) throws(SecretStoreError) in
      for _ in 0..<3 {
        var vanished = false
        let list = try withDeadline(
          "search the keyring", seconds: timeout,
          tolerating: { vanished = $0.isNoSuchObject; return vanished }
        ) { cancellable, error in
          secret_service_search_sync(
            service.pointer, accounts_secret_schema(), table, SECRET_SEARCH_ALL, cancellable, &error)
        }
        if !vanished { return takeObjects(list, as: SecretItem.self) }
      }
      throw .failed(operation: "search the keyring", detail: "items kept vanishing while being read")
    }
  }

  /// Deletes every item matching `attributes`; an item another process deleted first counts as
  /// deleted (SPEC §8).
  private func deleteMatching(_ attributes: [(String, String)], what: String) throws(SecretStoreError) {
    let service = try connect()
    let items = try search(service, attributes)
    if items.isEmpty {
      if let collection = try defaultCollection(service), isLocked(collection) {
        throw .locked(collection: label(of: collection))
      }
      return
    }
    if items.contains(where: isLocked) {
      try unlock(items.filter(isLocked), label: try defaultCollection(service).map(label(of:)) ?? "default")
    }
    for item in items {
      _ = try withDeadline("delete \(what)", seconds: timeout, tolerating: \.isNoSuchObject) { cancellable, error in
        secret_item_delete_sync(item.pointer, cancellable, &error)
      }
    }
  }

  /// The collection behind the `default` alias, where new items go; nil when there is none.
  private func defaultCollection(
    _ service: GObjectOwner<CLibSecret.SecretService>
  ) throws(SecretStoreError) -> GObjectOwner<SecretCollection>? {
    let collection = try withDeadline("find the default collection", seconds: timeout) { cancellable, error in
      secret_collection_for_alias_sync(service.pointer, "default", SECRET_COLLECTION_NONE, cancellable, &error)
    }
    return collection.map { GObjectOwner(taking: $0) }
  }

  /// Unlocks `objects` with the keyring's own prompt when someone can answer it; otherwise
  /// reports the collection as locked.
  private func unlock<Object>(_ objects: [GObjectOwner<Object>], label: String) throws(SecretStoreError) {
    guard mayPrompt else { throw .locked(collection: label) }
    let service = connected!.service
    let count = try withBorrowedList(objects) { (list) throws(SecretStoreError) in
      try withDeadline("unlock '\(label)'", seconds: promptTimeout, collection: label) { cancellable, error in
        secret_service_unlock_sync(service.pointer, list, cancellable, nil, &error)
      }
    }
    if count < 1 { throw .promptDismissed(operation: "unlock '\(label)'") }
  }

  private func attributes(of key: SecretKey) -> [(String, String)] {
    [("backend", key.backend), ("account", key.account), ("kind", key.kind.attributeValue)]
  }
}

// Property reads from libsecret's cached proxies: no D-Bus round trip, no deadline needed.

private func isLocked(_ collection: GObjectOwner<SecretCollection>) -> Bool {
  secret_collection_get_locked(collection.pointer) != 0
}

private func isLocked(_ item: GObjectOwner<SecretItem>) -> Bool {
  secret_item_get_locked(item.pointer) != 0
}

private func label(of collection: GObjectOwner<SecretCollection>) -> String {
  guard let text = secret_collection_get_label(collection.pointer) else { return "default" }
  defer { g_free(text) }
  return String(cString: text)
}
