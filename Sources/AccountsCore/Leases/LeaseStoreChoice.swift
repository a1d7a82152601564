import AccountsContract
import AccountsSystem

/// Which lease store keeps an account's leases: its backend's `lease_store` setting, else
/// ACCOUNTS_LEASE_STORE, else this machine's; the two naming different stores is refused.
/// Never a silent fall back from a shared store to this machine's: two machines would then
/// hold one account. And which server may be
/// sent which backend's `lease_store_password`: only the one that backend named.
public struct LeaseStoreChoice: Sendable {
  public let configuration: Configuration
  /// ACCOUNTS_LEASE_STORE, as given (empty: not set).
  public let forcedText: String?

  public init(configuration: Configuration, environment: [String: String]) {
    self.configuration = configuration
    forcedText = environment["ACCOUNTS_LEASE_STORE"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The store ACCOUNTS_LEASE_STORE names, nil when it is not set.
  public func forcedAddress() throws(CommandError) -> LeaseStoreAddress? {
    guard let text = forcedText else { return nil }
    do {
      return try LeaseStoreAddress.parse(text)
    } catch {
      throw .usage("ACCOUNTS_LEASE_STORE: \(error.message)", fix: error.fix)
    }
  }

  /// The store of `backend`'s accounts. ACCOUNTS_LEASE_STORE naming another store than the
  /// backend's own `lease_store` is refused: one of them would hold the pool's leases unseen
  /// by the other's holders, and an account would get two. Only for the backends a command
  /// leases or changes: the environment still serves the backends without a store of their own.
  public func address(of backend: String) throws -> LeaseStoreAddress {
    let forced = try forcedAddress()
    guard let own = try ownAddress(of: backend) else { return forced ?? .local }
    if let forced, forced != own {
      throw CommandError.usage(
        "ACCOUNTS_LEASE_STORE names \(forced), but backend \(backend) keeps its leases in \(own) (its lease_store): "
          + "one pool must keep its leases in one store",
        fix: "unset ACCOUNTS_LEASE_STORE, or set it to \(own)")
    }
    return own
  }

  /// The store `backend` names itself (`lease_store`), nil when it names none.
  func ownAddress(of backend: String) throws -> LeaseStoreAddress? {
    guard let text = configuration.backends.first(where: { $0.name == backend })?.settings[OwnBackendSetting.leaseStore]
    else { return nil }
    do {
      return try LeaseStoreAddress.parse(text)
    } catch {
      throw CommandError.usage(
        "backend \(backend): \(error.message)", fix: "fix it with `accounts backend set \(backend) lease_store=...`")
    }
  }

  /// Where `backend`'s leases are for reading: its own store, else the environment's, else
  /// this machine's. Reading never refuses (`leases`, `release` read every store there is).
  func readAddress(of backend: String) throws -> LeaseStoreAddress {
    try ownAddress(of: backend) ?? forcedAddress() ?? .local
  }

  /// The one store of `accounts`, which must all share it (this machine's for none).
  public func address(for accounts: [AccountID]) throws -> LeaseStoreAddress {
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
    return chosen.first?.address ?? .local
  }

  /// Every store this setup's leases may be in: the one ACCOUNTS_LEASE_STORE names, or this
  /// machine's, and each one a backend names.
  public func addresses() throws -> [LeaseStoreAddress] {
    var addresses: [LeaseStoreAddress] = [try forcedAddress() ?? .local]
    for backend in configuration.backends {
      let address = try readAddress(of: backend.name)
      if !addresses.contains(address) { addresses.append(address) }
    }
    return addresses
  }

  /// `accounts` by store, in the order each store is first met.
  public func grouped(_ accounts: [AccountID]) throws -> [(address: LeaseStoreAddress, accounts: [AccountID])] {
    var byStore: [(address: LeaseStoreAddress, accounts: [AccountID])] = []
    for account in accounts {
      let address = try address(of: account.backend)
      if let index = byStore.firstIndex(where: { $0.address == address }) {
        byStore[index].accounts.append(account)
      } else {
        byStore.append((address, [account]))
      }
    }
    return byStore
  }

  /// The backends whose accounts `address` keeps.
  public func backends(using address: LeaseStoreAddress) throws -> [BackendConfig] {
    try configuration.backends.filter { try self.readAddress(of: $0.name) == address }
  }

  /// The key prefix of `account` in a shared store (its backend's `lease_prefix`).
  public func prefix(of account: AccountID) -> String {
    configuration.backends.first { $0.name == account.backend }?.settings[OwnBackendSetting.leasePrefix]
      ?? LeasePrefix.defaultPrefix(backend: account.backend)
  }

  /// The backend whose secret setting `lease_store_password` is sent to `server`: the first (by
  /// name) of `backends` that has one and gave it for that server.
  public func passwordBackend(for server: RedisAddress, among backends: [BackendConfig]) -> BackendConfig? {
    backends.sorted(by: { $0.name < $1.name }).first {
      $0.secretSettings.contains(OwnBackendSetting.leaseStorePassword) && Self.isPasswordFor(server, $0)
    }
  }

  /// Whether `backend`'s password was given for `server`: its own lease_store names that server
  /// (any database), or it names none and ACCOUNTS_LEASE_STORE chose the store. Never a password
  /// given for one server sent to another that ACCOUNTS_LEASE_STORE names.
  public static func isPasswordFor(_ server: RedisAddress, _ backend: BackendConfig) -> Bool {
    guard let text = backend.settings[OwnBackendSetting.leaseStore] else { return true }
    guard case .redis(let own)? = try? LeaseStoreAddress.parse(text) else { return false }
    return own.endpoint == server.endpoint && own.user == server.user
  }
}
