import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc
import SecretMemory

/// The session rules' view of the lease stores: an account's live lease, from its own store,
/// asked at the moment a command is about to log it in or out.
struct StoreLeaseLookup: LeaseLookup, @unchecked Sendable {
  // @unchecked: the environment's caches are each behind a Mutex, and the rest is immutable.
  let environment: Environment

  func lease(of id: AccountID, now: Timestamp) throws -> LeaseRecord? {
    try LeaseStores(environment).leases(of: [id], now: now)[id]
  }
}

/// Which lease store keeps an account's leases (issue 17): ACCOUNTS_LEASE_STORE when set, else
/// its backend's `lease_store` setting, else this machine's. Never a silent fall back from a
/// shared store to this machine's: two machines would then hold one account.
struct LeaseStores {
  let environment: Environment
  let configuration: Configuration
  /// How long a held lease in a shared store outlives a holder killed with SIGKILL.
  let heldTTLMilliseconds: Int64
  /// Whether a store's password may be read from the Secret Service. `list` must not: it never
  /// touches D-Bus, so a store with a password is left out of it (`leases` shows it).
  let readsPasswords: Bool

  /// A held lease's ttl in a shared store, when `--ttl` does not give one with CMD.
  static let defaultHeldTTLMilliseconds: Int64 = 30_000

  init(
    _ environment: Environment, heldTTLMilliseconds: Int64 = defaultHeldTTLMilliseconds, readsPasswords: Bool = true
  ) throws {
    self.environment = environment
    configuration = try environment.config.load()
    self.heldTTLMilliseconds = heldTTLMilliseconds
    self.readsPasswords = readsPasswords
  }

  /// The store of `accounts`, which must all share one.
  func store(for accounts: [AccountID]) throws -> LeaseStore {
    var chosen: [(address: LeaseStoreAddress, account: AccountID)] = []
    for account in accounts where !chosen.contains(where: { $0.account.backend == account.backend }) {
      let address = try address(of: account.backend)
      if let first = chosen.first, first.address != address {
        throw CommandError.usage(
          "\(first.account) and \(account) keep their leases in different stores (\(first.address), \(address))",
          fix: "lease them in two commands, or give their backends one lease_store")
      }
      chosen.append((address, account))
    }
    return try open(chosen.first?.address ?? .local)
  }

  /// Every store this setup's leases may be in: the one ACCOUNTS_LEASE_STORE names, or this
  /// machine's and each shared one a backend names.
  func all() throws -> [LeaseStore] {
    if let forced = try forcedAddress() { return [try open(forced)] }
    var addresses: [LeaseStoreAddress] = [.local]
    for backend in configuration.backends {
      let address = try address(of: backend.name)
      if !addresses.contains(address) { addresses.append(address) }
    }
    return try addresses.map(open)
  }

  /// The live leases of `accounts`, by account, from each one's store. With `unread`, a store
  /// that cannot be read is handed to it and the others are still read; without, it throws.
  func leases(
    of accounts: [AccountID], now: Timestamp, unread: ((any Error) -> Void)? = nil
  ) throws -> [AccountID: LeaseRecord] {
    var byStore: [(address: LeaseStoreAddress, accounts: [AccountID])] = []
    for account in accounts {
      let address = try address(of: account.backend)
      if let index = byStore.firstIndex(where: { $0.address == address }) {
        byStore[index].accounts.append(account)
      } else {
        byStore.append((address, [account]))
      }
    }
    var found: [AccountID: LeaseRecord] = [:]
    for (address, accounts) in byStore {
      do {
        for record in try open(address).leases(of: accounts, now: now) where found[record.account] == nil {
          found[record.account] = record
        }
      } catch {
        guard let unread else { throw error }
        unread(error)
      }
    }
    return found
  }

  // MARK: Choosing

  private func forcedAddress() throws(CommandError) -> LeaseStoreAddress? {
    guard let text = environment.variables["ACCOUNTS_LEASE_STORE"], !text.isEmpty else { return nil }
    do {
      return try LeaseStoreAddress.parse(text)
    } catch {
      throw .usage("ACCOUNTS_LEASE_STORE: \(error.message)", fix: error.fix)
    }
  }

  private func address(of backend: String) throws -> LeaseStoreAddress {
    if let forced = try forcedAddress() { return forced }
    guard let text = configuration.backends.first(where: { $0.name == backend })?.settings[OwnBackendSetting.leaseStore]
    else { return .local }
    do {
      return try LeaseStoreAddress.parse(text)
    } catch {
      throw CommandError.usage(
        "backend \(backend): \(error.message)", fix: "fix it with `accounts backend set \(backend) lease_store=...`")
    }
  }

  private func open(_ address: LeaseStoreAddress) throws -> LeaseStore {
    switch address {
    case .local:
      return LocalLeaseStore(directory: try LocalLeaseStore.defaultDirectory(environment: environment.variables))
    case .redis(let redis):
      // The backends that use this store: their prefixes, and the password of the first that
      // has one.
      let users = try configuration.backends.filter { try self.address(of: $0.name) == address }
      let prefixes = users.map { $0.settings[OwnBackendSetting.leasePrefix] ?? LeasePrefix.defaultPrefix(backend: $0.name) }
      let prefix: (AccountID) -> String = { account in
        self.configuration.backends.first { $0.name == account.backend }?.settings[OwnBackendSetting.leasePrefix]
          ?? LeasePrefix.defaultPrefix(backend: account.backend)
      }
      return RedisLeaseStore(
        address: redis, password: try password(for: redis, from: users),
        timeoutMilliseconds: Int(try environment.networkTimeout() * 1000), prefix: prefix, prefixes: prefixes,
        heldTTLMilliseconds: heldTTLMilliseconds, launchKeeper: LeaseKeeperCommand.launch)
    }
  }

  /// The store's password: the secret setting `lease_store_password` of the first backend
  /// (by name) that has one for `server`, from the Secret Service.
  private func password(for server: RedisAddress, from backends: [BackendConfig]) throws -> SecretBytes? {
    guard let backend = backends.sorted(by: { $0.name < $1.name }).first(where: {
      $0.secretSettings.contains(OwnBackendSetting.leaseStorePassword) && Self.isPasswordFor(server, $0)
    })
    else { return nil }
    guard readsPasswords else {
      throw CommandError(
        .failure, "lease store \(server) has a password, which list does not read from the keyring",
        fix: "`accounts leases` shows its leases")
    }
    guard
      let value = try environment.ledger.claimedSecret(
        .setting(OwnBackendSetting.leaseStorePassword, backend: backend.name), recorded: configuration.secretService)
    else {
      throw CommandError(
        .loginRequired, "backend \(backend.name): its lease_store_password is not in the keyring",
        fix: "give it again with `accounts backend set \(backend.name) --secret lease_store_password`")
    }
    return value
  }

  /// Whether `backend`'s password was given for `server`: its own lease_store names that server
  /// (any database), or it names none and ACCOUNTS_LEASE_STORE chose the store. Never a password
  /// given for one server sent to another that ACCOUNTS_LEASE_STORE names.
  private static func isPasswordFor(_ server: RedisAddress, _ backend: BackendConfig) -> Bool {
    guard let text = backend.settings[OwnBackendSetting.leaseStore] else { return true }
    guard case .redis(let own)? = try? LeaseStoreAddress.parse(text) else { return false }
    return own.endpoint == server.endpoint && own.user == server.user
  }
}
