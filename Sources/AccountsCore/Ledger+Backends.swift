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
      let (store, carried, provider) = try begin(name, &configuration, &config)
      do {
        for setting in secretSettings.keys.sorted() {
          try store.store(secretSettings[setting]!, for: .setting(setting, backend: name))
        }
      } catch {
        recover(name, after: error, &configuration, &config, store)
        throw error
      }
      try configuration.add(backend)
      if !carried { configuration.markSettled(name) }
      configuration.secretService = provider ?? configuration.secretService
      do {
        try config.save(configuration)
      } catch {
        try? store.deleteSettings(backend: name)  // the config could not name them
        throw error
      }
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
      let (_, carried, provider) = try begin(name, &configuration, &config)
      var stored: [String] = []
      func undoStores() {  // rule 4: what config.json does not record is taken back
        for key in stored {
          if let old = previous[key] {
            try? store.store(old, for: .setting(key, backend: name))
          } else {
            try? store.delete(.setting(key, backend: name))
          }
        }
      }
      do {
        for key in secretSettings.keys.sorted() {
          try store.store(secretSettings[key]!, for: .setting(key, backend: name))
          stored.append(key)
        }
      } catch {
        if !mayStillLand(error) { undoStores() }
        recover(name, after: error, &configuration, &config, store)
        throw error
      }
      configuration.update(name, apply)
      // With a deletion to come, the mark stays until it is done.
      if !carried, doomed.isEmpty { configuration.markSettled(name) }
      configuration.secretService = provider ?? configuration.secretService
      do {
        try config.save(configuration)
      } catch {
        undoStores()
        throw error
      }
      var change = BackendChange(before: before, after: configuration[name]!)
      for (position, key) in doomed.enumerated() {
        do {
          try store.delete(.setting(key, backend: name))
        } catch {
          change.leftInKeyring = Array(doomed[position...])  // swept when the backend is next settled
          return change
        }
      }
      if !doomed.isEmpty, !carried {
        configuration.markSettled(name)
        try? config.save(configuration)  // the mark alone stays if this fails: settling finds nothing to do
      }
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
        let (store, carried, provider) = try begin(name, &configuration, &config)
        do {
          try store.deleteSettings(backend: name)
        } catch {
          recover(name, after: error, &configuration, &config, store)
          throw error
        }
        configuration.remove(name)
        if !carried { configuration.markSettled(name) }
        configuration.secretService = provider ?? configuration.secretService
        try config.save(configuration)
        return (backend, forgotten)
      }
    }
  }

  /// Rules 6, 5 and 2 before `name`'s secret settings change: the provider checked, what
  /// earlier commands left settled, this change's intent on disk. `carried`: `name` was
  /// unsettled already (a command clears only the mark it set). `provider`: the one to record
  /// with the final write, once the change succeeded.
  private func begin(
    _ name: String, _ configuration: inout Configuration, _ config: inout LockedDocument<Configuration>
  ) throws -> (store: SecretStore, carried: Bool, provider: String?) {
    let store = try secrets()
    let provider = try checkProvider(store, configuration)
    try settleUnsettled(&configuration, store)
    let carried = configuration.unsettled.contains(name)
    configuration.markUnsettled(name)
    try config.save(configuration)
    return (store, carried, provider)
  }

  /// Rule 6 for config.json (see `checkProvider` for the index).
  func checkProvider(_ store: SecretStore, _ configuration: Configuration) throws -> String? {
    guard let current = try store.providerName() else { return nil }
    if let recorded = configuration.secretService, recorded != current, configuration.claimsSecrets {
      throw SecretStoreError.providerChanged(stored: recorded, current: current)
    }
    return current
  }

  /// Settles what earlier commands left unsettled, best effort (see `settleUnsettled` for
  /// accounts).
  func settleUnsettled(_ configuration: inout Configuration, _ store: SecretStore) throws {
    for name in configuration.unsettled {
      do {
        try settle(name, &configuration, store)
      } catch {
        if mayStillLand(error) { throw error }
        return
      }
    }
  }

  /// A backend the configuration no longer names keeps no secret setting; one it names keeps
  /// exactly those it lists, and lists only those the keyring has.
  func settle(_ name: String, _ configuration: inout Configuration, _ store: SecretStore) throws {
    guard let backend = configuration[name] else {
      try store.deleteSettings(backend: name)
      configuration.markSettled(name)
      return
    }
    var stored = Set<String>()
    for case .setting(let setting) in try store.kinds(backend: name, account: "") { stored.insert(setting) }
    for setting in stored.subtracting(backend.secretSettings).sorted() {
      try store.delete(.setting(setting, backend: name))
    }
    configuration.update(name) { $0.secretSettings.removeAll { !stored.contains($0) } }
    configuration.markSettled(name)
  }

  private func recover(
    _ name: String, after error: Error, _ configuration: inout Configuration,
    _ config: inout LockedDocument<Configuration>, _ store: SecretStore
  ) {
    if !mayStillLand(error) {
      var settled = configuration
      if (try? settle(name, &settled, store)) != nil { configuration = settled }
    }
    try? config.save(configuration)
  }
}
