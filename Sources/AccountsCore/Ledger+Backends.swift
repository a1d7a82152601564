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
