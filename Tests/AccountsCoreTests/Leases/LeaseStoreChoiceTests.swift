import AccountsContract
import AccountsCore
import AccountsSystem
import Testing

/// Which store keeps an account's leases, and which server may be sent which backend's
/// password (a security rule): the choice every lease command makes, without opening a store.
@Suite struct LeaseStoreChoiceTests {
  let ci = "redis://ci@ci-redis:6379/2"
  let other = "redis://ci-other:6379"

  func choice(_ backends: [BackendConfig], environment: [String: String] = [:]) throws -> LeaseStoreChoice {
    LeaseStoreChoice(configuration: try Configuration(backends: backends), environment: environment)
  }

  func backend(_ name: String, store: String? = nil, prefix: String? = nil, password: Bool = false) -> BackendConfig {
    var settings: [String: String] = [:]
    settings[OwnBackendSetting.leaseStore] = store
    settings[OwnBackendSetting.leasePrefix] = prefix
    return BackendConfig(
      name: name, adapter: "plain", settings: settings,
      secretSettings: password ? [OwnBackendSetting.leaseStorePassword] : [])
  }

  func redis(_ text: String) throws -> RedisAddress {
    guard case .redis(let address) = try LeaseStoreAddress.parse(text) else { throw CommandError(.failure, text) }
    return address
  }

  @Test func aBackendsLeaseStoreElseThisMachines() throws {
    let setup = try choice([backend("corp", store: ci), backend("home")])
    #expect(try setup.address(of: "corp") == LeaseStoreAddress.parse(ci))
    #expect(try setup.address(of: "home") == .local)
    #expect(try setup.address(of: "gone") == .local, "a backend not configured: this machine's")
    #expect(try setup.addresses() == [.local, LeaseStoreAddress.parse(ci)])
  }

  @Test func theEnvironmentsStoreIsTheStoreOfEveryBackendWithoutOne() throws {
    let setup = try choice([backend("corp", store: other), backend("home")], environment: ["ACCOUNTS_LEASE_STORE": other])
    #expect(try setup.address(of: "corp") == LeaseStoreAddress.parse(other))
    #expect(try setup.address(of: "home") == LeaseStoreAddress.parse(other))
    #expect(try setup.addresses() == [LeaseStoreAddress.parse(other)])
    let empty = try choice([backend("corp", store: ci)], environment: ["ACCOUNTS_LEASE_STORE": ""])
    #expect(try empty.address(of: "corp") == LeaseStoreAddress.parse(ci), "set but empty: not set")
  }

  /// One pool, one store: the environment naming another store than a backend's own (this
  /// machine's, another server, another database of the same) is refused, naming both.
  @Test func theEnvironmentNamingAnotherStoreThanABackendsIsRefused() throws {
    for forced in ["local", other, "redis://ci@ci-redis:6379/3"] {
      let setup = try choice([backend("corp", store: ci), backend("home")], environment: ["ACCOUNTS_LEASE_STORE": forced])
      #expect(try setup.address(of: "home") == LeaseStoreAddress.parse(forced))
      let refused = #expect(throws: CommandError.self, "\(forced)") { try setup.address(of: "corp") }
      #expect(refused?.status == .usage)
      #expect(refused?.message.contains("ACCOUNTS_LEASE_STORE names \(try LeaseStoreAddress.parse(forced))") == true)
      #expect(refused?.message.contains("backend corp keeps its leases in \(try LeaseStoreAddress.parse(ci))") == true)
      // What home's commands and the readers of every store need still works: home's store is
      // the environment's, and corp's own is read where it is.
      #expect(try setup.address(for: [AccountID(user: "me", backend: "home")]) == LeaseStoreAddress.parse(forced))
      #expect(try setup.backends(using: LeaseStoreAddress.parse(forced)).map(\.name) == ["home"])
      #expect(try setup.addresses() == [LeaseStoreAddress.parse(forced), LeaseStoreAddress.parse(ci)])
    }
  }

  @Test func accountsOfTwoStoresCannotBeLeasedTogether() throws {
    let setup = try choice([backend("corp", store: ci), backend("home")])
    let qa = AccountID(user: "qa1", backend: "corp")
    let me = AccountID(user: "me", backend: "home")
    #expect(try setup.address(for: [qa, AccountID(user: "qa2", backend: "corp")]) == LeaseStoreAddress.parse(ci))
    let refused = #expect(throws: CommandError.self) { try setup.address(for: [qa, me]) }
    #expect(refused?.status == .usage)
    #expect(refused?.message.contains("qa1@corp and me@home keep their leases in different stores") == true)
    #expect(try setup.address(for: []) == .local)
    let grouped = try setup.grouped([qa, me, AccountID(user: "qa2", backend: "corp")])
    #expect(grouped.map(\.accounts) == [[qa, AccountID(user: "qa2", backend: "corp")], [me]])
  }

  @Test func malformedAddressesAreUsageErrorsNamingTheirFix() throws {
    let setup = try choice([backend("corp", store: "http://nope")])
    let backendError = #expect(throws: CommandError.self) { try setup.address(of: "corp") }
    #expect(backendError?.message.hasPrefix("backend corp: ") == true)
    #expect(backendError?.fix == "fix it with `accounts backend set corp lease_store=...`")
    let forced = try choice([], environment: ["ACCOUNTS_LEASE_STORE": "http://nope"])
    let environmentError = #expect(throws: CommandError.self) { try forced.addresses() }
    #expect(environmentError?.message.hasPrefix("ACCOUNTS_LEASE_STORE: ") == true)
  }

  /// A password is sent only to the server its backend named (any database of it), or, for a
  /// backend that names no store, to the one ACCOUNTS_LEASE_STORE chose; the first such
  /// backend by name gives it. Never a password given for one server to another.
  @Test func aPasswordGoesOnlyToTheServerItWasGivenFor() throws {
    let setup = try choice([
      backend("b", store: ci, password: true), backend("a", store: "redis://ci@ci-redis:6379/5", password: true),
      backend("c", store: other, password: true), backend("d", password: true), backend("e", store: ci),
    ])
    let backends = setup.configuration.backends
    #expect(setup.passwordBackend(for: try redis(ci), among: backends.filter { $0.name != "d" })?.name == "a")
    #expect(setup.passwordBackend(for: try redis(other), among: backends.filter { $0.name != "d" })?.name == "c")
    #expect(setup.passwordBackend(for: try redis("redis://ci-redis:6379"), among: [backends[0], backends[1]]) == nil,
      "another user on the same server is another server")
    #expect(setup.passwordBackend(for: try redis("redis://elsewhere:1"), among: backends)?.name == "d",
      "a backend naming no store gave its password for whichever the environment chooses")
    #expect(setup.passwordBackend(for: try redis("redis://elsewhere:1"), among: [backends[2]]) == nil)
  }

  @Test func theKeyPrefixIsTheBackendsOrItsLeasePrefix() throws {
    let setup = try choice([backend("corp", prefix: "pool:qa"), backend("home")])
    #expect(setup.prefix(of: AccountID(user: "qa1", backend: "corp")) == "pool:qa")
    #expect(setup.prefix(of: AccountID(user: "me", backend: "home")) == "accounts:lease:home")
  }
}
