import AccountsContract
import AccountsCore
import AccountsSystem
import SecretMemory

/// The lease stores a command opens, as `LeaseStoreChoice` chooses them: this machine's, or a
/// Redis server, with the password a backend gave for it from the Secret Service.
public struct LeaseStores {
  public let choice: LeaseStoreChoice
  let variables: [String: String]
  let ledger: Ledger
  let networkTimeout: Double
  /// How long a held lease in a shared store outlives a holder killed with SIGKILL.
  let heldTTLMilliseconds: Int64
  /// Whether a store's password may be read from the Secret Service. `list` must not: it never
  /// touches D-Bus, so a store with a password is left out of it (`leases` shows it).
  let readsPasswords: Bool
  /// Starts the keeper of a held lease in a shared store, handing it `order`.
  let launchKeeper: ([UInt8]) throws -> FileDescriptor
  /// Says a warning about a store on stderr.
  let warn: (String) -> Void

  /// A held lease's ttl in a shared store, when `--ttl` does not give one with CMD.
  public static let defaultHeldTTLMilliseconds: Int64 = 30_000

  public init(
    choice: LeaseStoreChoice, variables: [String: String], ledger: Ledger, networkTimeout: Double,
    heldTTLMilliseconds: Int64 = defaultHeldTTLMilliseconds, readsPasswords: Bool = true,
    launchKeeper: @escaping ([UInt8]) throws -> FileDescriptor, warn: @escaping (String) -> Void = { _ in }
  ) {
    self.choice = choice
    self.variables = variables
    self.ledger = ledger
    self.networkTimeout = networkTimeout
    self.heldTTLMilliseconds = heldTTLMilliseconds
    self.readsPasswords = readsPasswords
    self.launchKeeper = launchKeeper
    self.warn = warn
  }

  /// The store of `accounts`, which must all share one.
  public func store(for accounts: [AccountID]) throws -> LeaseStore {
    try open(try choice.address(for: accounts))
  }

  /// Every store this setup's leases may be in.
  public func all() throws -> [LeaseStore] {
    try choice.addresses().map(open)
  }

  /// The live leases of `accounts`, by account, from each one's store. With `unread`, a store
  /// that cannot be read is handed to it and the others are still read; without, it throws.
  public func leases(
    of accounts: [AccountID], now: Timestamp, unread: ((any Error) -> Void)? = nil
  ) throws -> [AccountID: LeaseRecord] {
    var found: [AccountID: LeaseRecord] = [:]
    for (address, accounts) in try choice.grouped(accounts) {
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

  private func open(_ address: LeaseStoreAddress) throws -> LeaseStore {
    switch address {
    case .local:
      return LocalLeaseStore(directory: try LocalLeaseStore.defaultDirectory(environment: variables))
    case .redis(let redis):
      // The backends that use this store: their prefixes, and the password of the first that
      // has one.
      let users = try choice.backends(using: address)
      let prefixes = users.map { $0.settings[OwnBackendSetting.leasePrefix] ?? LeasePrefix.defaultPrefix(backend: $0.name) }
      let choice = choice
      return RedisLeaseStore(
        address: redis, password: try password(for: redis, from: users),
        timeoutMilliseconds: Int(networkTimeout * 1000), prefix: { choice.prefix(of: $0) }, prefixes: prefixes,
        heldTTLMilliseconds: heldTTLMilliseconds, launchKeeper: launchKeeper, warn: warn)
    }
  }

  /// The store's password, from the Secret Service (`LeaseStoreChoice.passwordBackend`).
  private func password(for server: RedisAddress, from backends: [BackendConfig]) throws -> SecretBytes? {
    guard let backend = choice.passwordBackend(for: server, among: backends) else { return nil }
    guard readsPasswords else {
      throw CommandError(
        .failure, "lease store \(server) has a password, which list does not read from the keyring",
        fix: "`accounts leases` shows its leases")
    }
    guard
      let value = try ledger.claimedSecret(
        .setting(OwnBackendSetting.leaseStorePassword, backend: backend.name),
        recorded: choice.configuration.secretService)
    else {
      throw CommandError(
        .loginRequired, "backend \(backend.name): its lease_store_password is not in the keyring",
        fix: "give it again with `accounts backend set \(backend.name) --secret lease_store_password`")
    }
    return value
  }
}

/// The session rules' view of the lease stores (`LeaseLookup`): an account's live lease, from
/// its own store, asked at the moment a command is about to log it in or out. `stores` opens
/// them as the command would.
public struct StoreLeaseLookup: LeaseLookup, @unchecked Sendable {
  // @unchecked: `stores` builds its stores from values fixed when the command started.
  let stores: () throws -> LeaseStores

  public init(stores: @escaping () throws -> LeaseStores) { self.stores = stores }

  public func lease(of id: AccountID, now: Timestamp) throws -> LeaseRecord? {
    try stores().leases(of: [id], now: now)[id]
  }
}
