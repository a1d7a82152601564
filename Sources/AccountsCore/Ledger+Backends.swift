/// The backends' half of the ledger: config.json and the backends' secret settings in the
/// keyring, changed together under config.json's lock by the same rules as accounts (see
/// `Ledger`).
extension Ledger {
  /// Records a new backend and stores its secret settings. Throws `backendExists` when another
  /// process added one of that name first; then nothing of this one is kept.
  public func addBackend(_ backend: BackendConfig, secretSettings: [String: SecretBytes]) throws {
    try config.withLock { config in
      var configuration = config.content
      guard configuration[backend.name] == nil else { throw ConfigurationError.backendExists(backend.name) }
      guard !secretSettings.isEmpty else {
        try configuration.add(backend)
        try config.save(configuration)
        return
      }
      let store = try secrets()
      try settleUnsettled(&configuration, store)
      configuration.markUnsettled(backend.name)
      try config.save(configuration)
      do {
        for name in secretSettings.keys.sorted() {
          try store.store(secretSettings[name]!, for: .setting(name, backend: backend.name))
        }
      } catch {
        recover(backend.name, after: error, &configuration, &config, store)
        throw error
      }
      try configuration.add(backend)
      configuration.markSettled(backend.name)
      do {
        try config.save(configuration)
      } catch {
        try? store.deleteSettings(backend: backend.name)  // the config could not name them
        throw error
      }
    }
  }

  /// Removes a backend and deletes its secret settings. Its accounts must be forgotten first
  /// (`forget`); one saved meanwhile makes this fail rather than leave it without a backend.
  @discardableResult
  public func removeBackend(_ name: String) throws -> BackendConfig {
    try config.withLock { config in
      var configuration = config.content
      let backend = try configuration.backend(named: name)
      let accounts = try index.load().accounts.filter { $0.id.backend == name }.count
      guard accounts == 0 else {
        throw CommandError(
          .failure, "backend \(name) still has \(accounts == 1 ? "a saved account" : "\(accounts) saved accounts")",
          fix: "remove them first, or add --force to forget them too")
      }
      guard !backend.secretSettings.isEmpty || configuration.unsettled.contains(name) else {
        configuration.remove(name)
        try config.save(configuration)
        return backend
      }
      let store = try secrets()
      try settleUnsettled(&configuration, store)
      configuration.markUnsettled(name)
      try config.save(configuration)
      do {
        try store.deleteSettings(backend: name)
      } catch {
        if !mayStillLand(error) { configuration.markSettled(name) }
        try? config.save(configuration)
        throw error
      }
      configuration.remove(name)
      configuration.markSettled(name)
      try config.save(configuration)
      return backend
    }
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
  /// what it has (a missing one is reported by `backend show` and `doctor`).
  func settle(_ name: String, _ configuration: inout Configuration, _ store: SecretStore) throws {
    if configuration[name] == nil { try store.deleteSettings(backend: name) }
    configuration.markSettled(name)
  }

  private func recover(
    _ name: String, after error: Error, _ configuration: inout Configuration,
    _ config: inout LockedDocument<Configuration>, _ store: SecretStore
  ) {
    var settled = configuration
    if (try? settle(name, &settled, store)) != nil {
      configuration = settled
      if mayStillLand(error) { configuration.markUnsettled(name) }
    }
    try? config.save(configuration)
  }
}
