import AccountsContract
import AccountsSystem
import SecretMemory
/// The backends' half of the ledger: config.json and the backends' secret settings in the
/// keyring, changed together under config.json's lock by the same rules as accounts (see
/// `Ledger`).
extension Ledger {
  /// Records a new backend and stores its secret settings. Throws `backendExists` when another
  /// process added one of that name first; then nothing of this one is kept.
  public func addBackend(_ backend: BackendConfig, secretSettings: [String: SecretBytes]) throws {
    try adoptSecretServiceIfAsked()
    try config.withLock { config in
      var configuration = config.content
      guard configuration[backend.name] == nil else { throw ConfigurationError.backendExists(backend.name) }
      let name = backend.name
      // A backend unsettled by an interrupted command is settled even when this one stores no
      // secret: its leftovers must not stay behind under the new backend's name.
      guard !secretSettings.isEmpty || configuration.unsettled.contains(name) else {
        try configuration.add(backend)
        try config.save(configuration)
        return
      }
      try carryOut(
        SecretChange(
          of: name,
          inKeyring: { store in
            for setting in secretSettings.keys.sorted() {
              try store.store(secretSettings[setting]!, for: .setting(setting, backend: name))
            }
          },
          claim: { configuration in try configuration.add(backend) },
          undo: { store in try? store.deleteSettings(backend: name) }),  // the config could not name them
        &configuration, &config)
    }
  }

  /// What `changeBackend` did.
  public struct BackendChange: Sendable {
    /// The backend as it was, and as config.json now records it.
    public var before: BackendConfig
    public var after: BackendConfig
    /// Unset secret settings whose keyring items could not be deleted: config.json no longer
    /// names them, and the backend stays unsettled until a later command sweeps them.
    public var leftInKeyring: [String] = []
  }

  /// Changes a backend's settings in place: `settings` are set, `secretSettings` stored (new,
  /// or replacing the kept ones), and the settings in `unset` removed, a secret one's keyring
  /// item deleted. `unset` names none of the others. Throws `unknownBackend` when the backend
  /// is gone (removed meanwhile).
  ///
  /// New secrets are stored before config.json claims them, and put back (a replaced one) or
  /// deleted (a new one) when it cannot; an unset secret is forgotten by config.json before
  /// its item is deleted, so no claim is ever left without its item.
  @discardableResult
  public func changeBackend(
    _ name: String, settings: [String: String] = [:], secretSettings: [String: SecretBytes] = [:],
    unset: Set<String> = []
  ) throws -> BackendChange {
    precondition(unset.isDisjoint(with: settings.keys) && unset.isDisjoint(with: secretSettings.keys))
    try adoptSecretServiceIfAsked()
    return try config.withLock { config in
      var configuration = config.content
      let before = try configuration.backend(named: name)
      func apply(_ backend: inout BackendConfig) {
        backend.settings.merge(settings) { $1 }
        for key in unset { backend.settings[key] = nil }
        backend.secretSettings.removeAll { unset.contains($0) }
        for key in secretSettings.keys.sorted() where !backend.secretSettings.contains(key) {
          backend.secretSettings.append(key)
        }
      }
      let doomed = before.secretSettings.filter { unset.contains($0) }
      guard !secretSettings.isEmpty || !doomed.isEmpty else {
        configuration.update(name, apply)
        try config.save(configuration)
        return BackendChange(before: before, after: configuration[name]!)
      }
      let store = try secrets()
      // Rule 6 before a replaced secret is read to be kept: never another provider's item.
      _ = try checkProvider(store, configuration)
      var previous: [String: SecretBytes] = [:]
      for key in secretSettings.keys where before.secretSettings.contains(key) {
        previous[key] = try store.lookup(.setting(key, backend: name))
      }
      var stored: [String] = []
      func undoStores(_ store: SecretStore) {  // rule 4: what config.json does not record is taken back
        for key in stored {
          if let old = previous[key] {
            try? store.store(old, for: .setting(key, backend: name))
          } else {
            try? store.delete(.setting(key, backend: name))
          }
        }
      }
      let begun = try carryOut(
        SecretChange(
          of: name,
          inKeyring: { store in
            do {
              for key in secretSettings.keys.sorted() {
                try store.store(secretSettings[key]!, for: .setting(key, backend: name))
                stored.append(key)
              }
            } catch {
              if !mayStillLand(error) { undoStores(store) }
              throw error
            }
          },
          claim: { configuration in configuration.update(name, apply) }, undo: undoStores,
          settledWhenSaved: doomed.isEmpty),  // with a deletion to come, the mark stays until it is done
        &configuration, &config)
      var change = BackendChange(before: before, after: configuration[name]!)
      let left = deleteUnclaimed(doomed.map { .setting($0, backend: name) }, begun, &configuration, &config)
      change.leftInKeyring = Array(doomed.suffix(left.count))  // swept when the backend is next settled
      return change
    }
  }

  /// Removes a backend and deletes its secret settings. Its saved accounts are forgotten with
  /// it when `forgettingAccounts`, else they make this fail. Both locks are held throughout
  /// (config.json's, then the index's), so no account can be saved for the backend meanwhile.
  @discardableResult
  public func removeBackend(_ name: String, forgettingAccounts: Bool) throws -> (BackendConfig, Forgotten) {
    try adoptSecretServiceIfAsked()
    return try config.withLock { config in
      try index.withLock { index in
        var configuration = config.content
        let backend = try configuration.backend(named: name)
        let accounts = index.content.accounts.filter { $0.id.backend == name }.map(\.id)
        var forgotten = Forgotten()
        if !accounts.isEmpty {
          guard forgettingAccounts else {
            throw CommandError(
              .failure,
              "backend \(name) still has \(accounts.count == 1 ? "a saved account" : "\(accounts.count) saved accounts")",
              fix: "remove them first, or add --force to forget them too")
          }
          forgotten = try forget(accounts, &index)
          if let failure = forgotten.failure { throw failure }
        }
        guard !backend.secretSettings.isEmpty || configuration.unsettled.contains(name) else {
          configuration.remove(name)
          try config.save(configuration)
          return (backend, forgotten)
        }
        try carryOut(
          SecretChange(
            of: name, inKeyring: { store in try store.deleteSettings(backend: name) },
            claim: { configuration in configuration.remove(name) }),
          &configuration, &config)
        return (backend, forgotten)
      }
    }
  }
}

extension Configuration: SecretClaimingDocument {
  var holdersClaimingSecrets: [String] { backends.filter { !$0.secretSettings.isEmpty }.map(\.name) }

  static func accountsWithCachedToken(_ name: String) -> [AccountID] { [] }

  /// A backend the configuration no longer names keeps no secret setting; one it names keeps
  /// exactly those it lists, and lists only those the keyring has.
  mutating func settle(_ name: String, against store: SecretStore) throws {
    guard let backend = self[name] else {
      try store.deleteSettings(backend: name)
      markSettled(name)
      return
    }
    var stored = Set<String>()
    for case .setting(let setting) in try store.kinds(backend: name, account: "") { stored.insert(setting) }
    for setting in stored.subtracting(backend.secretSettings).sorted() {
      try store.delete(.setting(setting, backend: name))
    }
    update(name) { $0.secretSettings.removeAll { !stored.contains($0) } }
    markSettled(name)
  }
}
