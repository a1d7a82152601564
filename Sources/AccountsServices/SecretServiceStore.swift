import AccountsContract
import AccountsCore
import AccountsSystem
import SecretMemory
import Synchronization

/// The Secret Service as every command uses it, one store for both clients: a secret that is
/// readable now is read over a bare bus connection in an encrypted session
/// (`SecretServiceSession`: the calls secret-tool makes, without loading libsecret or GLib), and
/// everything else (writes, deletes, batch reads, the report, and every read that is not plainly
/// readable: nothing found, a locked collection or item, a prompt, an error reply) goes through
/// libsecret behind the private library's door (`PrivateSecretStore`), loaded only then, which
/// reports, unlocks and prompts. Whatever the bare path answers, libsecret would have answered
/// the same (the schema and the read policy are theirs alike: `SecretSchema`,
/// `SecretReadPolicy`). A token the kernel's cache holds never gets here (`KernelTokenCache`,
/// asked by the ledger first).
///
/// One call at a time, whichever thread makes it (`status --jobs`): libsecret's calls are made
/// for one caller, and the keyring daemon serialises them anyway.
public final class SecretServiceStore: SecretStore, @unchecked Sendable {
  // @unchecked Sendable: every call runs under `calls`, and only a call touches `session` and
  // `libraryStore`.
  private let busAddress: String?
  private let timeout: Double
  private let makeLibraryStore: () throws -> SecretStore
  /// Held around every call of the store.
  private let calls = Mutex(())
  /// The bare session: opened on the first read, `.some(nil)` once it could not be.
  private var session: SecretServiceSession??
  /// libsecret's store behind the door, made on first need.
  private var libraryStore: SecretStore?

  /// `busAddress`: DBUS_SESSION_BUS_ADDRESS (nil: every call takes the library's path);
  /// `timeout`: ACCOUNTS_SECRET_TIMEOUT, the bound of each whole bare read.
  public init(busAddress: String?, timeout: Double, library: @escaping () throws -> SecretStore) {
    self.busAddress = busAddress
    self.timeout = timeout
    self.makeLibraryStore = library
  }

  // MARK: - The bare reads

  public func lookup(_ key: SecretKey) throws -> SecretBytes? {
    try calls.withLock { _ in try bareFirst(key) }
  }

  private func bareFirst(_ key: SecretKey) throws -> SecretBytes? {
    let read = try withSession(searching: key.attributes) { (session) throws(SecretServiceSession.Interruption) -> SecretBytes? in
      guard let found = try session.search(key.attributes), let item = found.unlocked.first else { return nil }
      return try session.secret(at: item)
    }
    if let read = read ?? nil { return read }
    return try library().lookup(key)
  }

  public func providerName() throws -> String? {
    try calls.withLock { _ in
      if let name = try withSession({ $0.providerName }) ?? nil { return name }
      return try library().providerName()
    }
  }

  /// Runs `body` with the bare session, opening it first; nil when there is none (no bus
  /// address, or it could not be opened: the library's path then decides). A bus or provider
  /// that did not answer in time is the command's error at once: the library would wait on it
  /// again; so is a provider that left the bus during a call, as the library reports it.
  private func withSession<T>(
    searching: [(String, String)]? = nil, _ body: (SecretServiceSession) throws(SecretServiceSession.Interruption) -> T
  ) throws(SecretStoreError) -> T? {
    guard let busAddress, !busAddress.isEmpty else { return nil }
    let outcome: Result<T?, SecretServiceSession.Interruption>
    do throws(SecretServiceSession.Interruption) {
      if let kept = session {
        kept?.beginRead()
      } else {
        session = .some(try SecretServiceSession(busAddress: busAddress, timeout: timeout, searching: searching))
      }
      outcome = .success(try (session ?? nil).map(body))
    } catch {
      session = .some(nil)
      outcome = .failure(error)
    }
    switch outcome {
    case .success(let value): return value
    case .failure(.silent(let seconds)):
      throw .timedOut(operation: "read from the keyring", seconds: seconds, prompt: false)
    case .failure(.providerLeft):
      throw .stuck(operation: "read from the keyring", seconds: 0)
    }
  }

  /// libsecret's store, made on first need.
  private func library() throws -> SecretStore {
    if let libraryStore { return libraryStore }
    let made = try makeLibraryStore()
    libraryStore = made
    return made
  }

  // MARK: - Everything else: the library's store

  public func store(_ secret: SecretBytes, for key: SecretKey) throws {
    try calls.withLock { _ in try library().store(secret, for: key) }
  }
  public func lookupAll(kind: SecretKind) throws -> [SecretKey: SecretBytes] {
    try calls.withLock { _ in try library().lookupAll(kind: kind) }
  }
  public func kinds(backend: String, account: String) throws -> [SecretKind] {
    try calls.withLock { _ in try library().kinds(backend: backend, account: account) }
  }
  public func delete(_ key: SecretKey) throws { try calls.withLock { _ in try library().delete(key) } }
  public func deleteAll(backend: String, account: String) throws {
    try calls.withLock { _ in try library().deleteAll(backend: backend, account: account) }
  }
  public func deleteSettings(backend: String) throws {
    try calls.withLock { _ in try library().deleteSettings(backend: backend) }
  }
  public func lock() throws -> String { try calls.withLock { _ in try library().lock() } }
  public func report() throws -> SecretServiceReport { try calls.withLock { _ in try library().report() } }
}
