import AccountsContract
import AccountsSystem
import SecretMemory
import Synchronization

// Backend preparation: once per flow, shared by its threads.
extension SessionFlow {
  /// A backend ready for its adapter: the adapter described, the settings checked against its
  /// declaration, the secret settings read from the keyring.
  public struct PreparedBackend: Sendable {
    public var config: BackendConfig
    public var adapter: AdapterDescription
    public var secretSettings: [String: SecretBytes]
    /// What a LOGIN needs with these settings, as the adapter says (ABI 1.3).
    public var loginNeeds: LoginNeeds = .password
  }

  /// Prepares `name`, once per flow.
  public func prepare(_ name: String) throws -> PreparedBackend {
    if let ready = prepared.get(name) { return ready }
    let config = try ledger.config.load()
    let backend = try config.backend(named: name)
    let adapter = try host().describe(backend.adapter, in: searchPath)
    let problems = BackendSettingsCheck(adapter: adapter, hostNames: hostNames).problems(settings: backend.settings, secretNames: backend.secretSettings)
    if let first = problems.first {
      throw CommandError(.failure, "backend \(backend.name): \(first)", fix: "see `accounts backend show \(backend.name)`")
    }
    var values: [String: SecretBytes] = [:]
    if !backend.secretSettings.isEmpty {
      // The adapter's own; accounts' (lease_store_password) is read by the lease commands.
      for setting in backend.secretSettings
      where !OwnBackendSetting.isOwnSecret(setting) || adapter.setting(named: setting) != nil {
        guard let value = try ledger.claimedSecret(.setting(setting, backend: name), recorded: config.secretService) else {
          throw CommandError(
            .loginRequired, "backend \(name): its secret setting \(setting) is not in the keyring",
            fix: "remove the backend and add it again (`accounts backend remove \(name)`)")
        }
        values[setting] = value
      }
    }
    let needs = try host().loginNeeds(backend.adapter, settings: backend.settings, in: searchPath)
    let ready = PreparedBackend(config: backend, adapter: adapter, secretSettings: values, loginNeeds: needs)
    prepared.set(name, ready)
    return ready
  }

  /// Forgets the backends prepared so far: the next `prepare` reads the configuration and the
  /// keyring again (`--refresh`, whose flow lasts as long as a command runs).
  func forgetPreparedBackends() {
    prepared.clear()
  }
}

/// The backends a flow has prepared, and whether each one's CHECK asks nothing, shared by its
/// threads: each is learnt once per flow, not once per account.
final class PreparedBackends: @unchecked Sendable {
  private var backends: [String: SessionFlow.PreparedBackend] = [:]
  private var checksAskingNothing: [String: Bool] = [:]
  private let lock = Mutex(())

  func get(_ name: String) -> SessionFlow.PreparedBackend? { lock.withLock { _ in backends[name] } }
  func set(_ name: String, _ backend: SessionFlow.PreparedBackend) { lock.withLock { _ in backends[name] = backend } }
  func checkAsksNothing(_ name: String) -> Bool? { lock.withLock { _ in checksAskingNothing[name] } }
  func setCheckAsksNothing(_ name: String, _ value: Bool) { lock.withLock { _ in checksAskingNothing[name] = value } }
  func clear() {
    lock.withLock { _ in
      backends = [:]
      checksAskingNothing = [:]
    }
  }
}
