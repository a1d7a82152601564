import AccountsSystem
import SecretMemory
import Synchronization
/// Where a login's password comes from.
public enum PasswordSource: Sendable {
  /// Given for this command (`--password-stdin`).
  case given(SecretBytes)
  /// The remembered password, else `ask` (which answers nil when nobody can be asked: no
  /// terminal).
  case rememberedOrAsk(@Sendable (AccountID) throws -> SecretBytes?)
  /// The remembered password only; never asks (`status`).
  case rememberedOnly
}

/// What a session is, without its token.
public struct SessionSummary: Sendable {
  public var id: AccountID
  public var sessionValues: [String: String]
  public var expiresAt: Timestamp?
}

/// A session the flow vouches for.
public struct ActiveSession: Sendable {
  public var summary: SessionSummary { SessionSummary(id: id, sessionValues: sessionValues, expiresAt: expiresAt) }

  public enum Origin: Sendable, Equatable {
    /// The stored token, trusted by its expiry (no network).
    case stored
    /// The stored token, and the backend confirmed it (CHECK).
    case proved
    /// A login of this command.
    case loggedIn
    /// The one automatic login after the stored session expired.
    case loggedInAgain
  }

  public var id: AccountID
  public var token: SecretBytes
  public var sessionValues: [String: String]
  public var expiresAt: Timestamp?
  public var origin: Origin
  /// Which session this is, to tell a verdict on it from one on a newer session.
  var observed: ObservedSession
}

/// The one way commands use sessions: SPEC §4 decided by `SessionRules`, carried out by the
/// ledger, with the backend reached through the adapter host. Every session command (`login`,
/// `switch`, `current --check`, `token`, `exec`, `request`, `status`, `logout`, `backend test`)
/// goes through it, so a verdict means the same in all of them, and the automatic re-login
/// happens at most once per command.
public struct SessionFlow: @unchecked Sendable {
  // @unchecked: the ledger's secret store is reached through `SerializedSecretStore` (one
  // keyring call at a time), the host is documented thread-safe, and the rest is immutable.
  let ledger: Ledger
  /// The adapter host, loaded on the first operation (`switch` and `token` need none) by the
  /// environment's one cache, which any thread may ask.
  private let host: () throws -> any AdapterHosting
  let searchPath: AdapterSearchPath
  /// Seconds the command's adapter operations may take together, network included (`--timeout`).
  let timeout: Double
  /// What is left of `timeout`: shared by every operation of the command (of one account, in
  /// `status`).
  var budget: OperationBudget
  let now: () -> Timestamp
  /// Progress a person may want to know ("logging in again"), for stderr.
  var notice: (String) -> Void
  private let prepared = PreparedBackends()
  let locks: SessionLocks
  /// The accounts of this flow are held by a lease (`accounts lease`): a take-over logs in
  /// again once with the remembered password (`SessionRules`, `leased`).
  public var leased = false
  /// Where the one-time code of a backend that needs one comes from (`OneTimeCode.swift`).
  let oneTimeCodes: OneTimeCodeSource

  public init(
    ledger: Ledger, host: @escaping () throws -> any AdapterHosting, searchPath: AdapterSearchPath, timeout: Double,
    now: @escaping () -> Timestamp, notice: @escaping (String) -> Void, oneTimeCodes: OneTimeCodeSource = .none
  ) {
    self.oneTimeCodes = oneTimeCodes
    self.ledger = ledger
    self.host = host
    // A login waits for another command's login of the same account: its two deadlines at most.
    self.locks = SessionLocks(path: ledger.index.file.path + ".sessions.lock", wait: 2 * timeout + 10)
    self.searchPath = searchPath
    self.timeout = timeout
    self.budget = OperationBudget(seconds: timeout)
    self.now = now
    self.notice = notice
  }

  // MARK: - Commands

  /// `login`: logs `id` in (saving it when new) with the password from `source`.
  public func logIn(_ id: AccountID, password source: PasswordSource, remember: Bool, takeSlot: Bool) throws -> ActiveSession {
    let backend = try prepare(id.backend)
    let (password, remembered) = try password(for: id, source)
    return try locks.exclusive(id) {
      try logIn(
        id, password, rememberedOne: remembered, remember: remember && !remembered, takeSlot: takeSlot, backend,
        asking: source.mayAsk)
    }
  }

  /// `switch`: `id` takes the slot with its valid session, else after a login (remembered
  /// password, else `source`). `reused`: no login was needed. A session the index records as
  /// valid is reused on the index's word, without the network or the keyring (the ledger keeps
  /// the index's claims true; a token deleted behind its back is found by the next command that
  /// reads it).
  public func switchTo(_ id: AccountID, password source: PasswordSource) throws -> (session: SessionSummary, reused: Bool) {
    if let reused = try reuse(id) { return (reused, true) }
    let backend = try prepare(id.backend)
    let (password, remembered) = try password(for: id, source)
    return try locks.exclusive(id) {
      // Another command may have logged the account in while this one waited.
      if let reused = try reuse(id) { return (reused, true) }
      let session = try logIn(
        id, password, rememberedOne: remembered, remember: false, takeSlot: true, backend, asking: source.mayAsk)
      return (session.summary, false)
    }
  }

  /// The slot for `id`'s valid session, on the index's word; nil when it has none.
  private func reuse(_ id: AccountID) throws -> SessionSummary? {
    // Twice at most: another command may log the account in between the look and the record.
    for _ in 0..<2 {
      guard let account = try ledger.index.load()[id] else {
        throw AccountLookupError.unknown(id.description, backend: nil, suggestions: [])
      }
      guard case .valid(let until) = account.tokenState(at: now()) else { return nil }
      if case .applied = try ledger.record(.sessionReused, for: id, observed: ObservedSession(account), at: now()) {
        return SessionSummary(id: id, sessionValues: account.session, expiresAt: until)
      }
    }
    return nil
  }

  /// The session `token`, `exec`, `request` and `current --check` use: the stored one when its
  /// expiry has not passed (proved with the backend when `prove`), after logging in again once
  /// when it expired and the password is remembered; with no session at all, a login with the
  /// password from `source`.
  public func session(for id: AccountID, prove: Bool, password source: PasswordSource) throws -> ActiveSession {
    try session(for: id, prove: prove, password: source, read: nil)
  }

  /// `session(for:)`, with the token already read when `read` has it (`status` reads them all at
  /// once).
  func session(for id: AccountID, prove: Bool, password source: PasswordSource, read: ReadTokens?) throws -> ActiveSession {
    if let stored = try storedSession(id, read: read) { return try use(stored, prove: prove, asking: source.mayAsk) }
    let backend = try prepare(id.backend)
    let (password, remembered) = try password(for: id, source)
    return try locks.exclusive(id) {
      // Another command may have logged the account in while this one waited.
      if let stored = try storedSession(id) { return try use(stored, prove: prove, asking: source.mayAsk) }
      return try logIn(
        id, password, rememberedOne: remembered, remember: false, takeSlot: false, backend, asking: source.mayAsk)
    }
  }

  /// A stored session, trusted by its expiry or proved with the backend. `asking`: a login
  /// again may ask a person for a one-time code.
  private func use(_ stored: ActiveSession, prove: Bool, asking: Bool) throws -> ActiveSession {
    let id = stored.id
    guard case .valid = tokenState(stored) else {
      let backend = try prepare(id.backend)
      return try react(
        to: .sessionExpired(message: "its expiry passed"), on: stored, backend, mayLogInAgain: true, asking: asking)
    }
    guard prove else { return stored }
    let backend = try prepare(id.backend)
    let outcome = try run(.check(token: stored.token), for: stored, backend)
    guard case .ok = outcome else {
      return try react(to: outcome, on: stored, backend, mayLogInAgain: true, asking: asking)
    }
    var proved = stored
    proved.origin = .proved
    return proved
  }

  /// `request`: one CALL with the session of `id`; on "expired", logs in again once and
  /// retries once. Returns the backend's answer.
  public func call(
    _ id: AccountID, method: String, path: String, parameters: [(String, String)], password source: PasswordSource
  ) throws -> AdapterSuccess {
    var session = try self.session(for: id, prove: false, password: source)
    let backend = try prepare(id.backend)
    while true {
      let outcome = try run(.call(token: session.token, method: method, path: path, parameters: parameters), for: session, backend)
      if case .ok(let success) = outcome { return success }
      session = try react(
        to: outcome, on: session, backend, mayLogInAgain: session.origin == .stored, asking: source.mayAsk)
    }
  }

  /// `logout`: ends the session here (SPEC §4: the token deleted, the slot emptied, through the
  /// ledger), then tells the backend when it can, with the token kept in memory only. Telling
  /// it is best effort: a failure there is a warning, and an adapter that crashes or exits
  /// during the call (which ends the process) finds the account logged out already; a kill
  /// between the two steps leaves the backend untold, nothing inconsistent. Returns the warnings.
  public func logOut(_ id: AccountID) throws -> [String] {
    var warnings: [String] = []
    let session = try storedSession(id)
    if session == nil { warnings.append("\(id) had no session") }
    try ledger.record(.loggedOut, for: id, at: now())
    if try ledger.index.load().unsettled.contains(id) {
      // The index no longer claims the token; the keyring could not delete it yet.
      warnings.append("the keyring kept the token for now; the next command on \(id) deletes it")
    }
    if let session {
      do {
        let backend = try prepare(id.backend)
        let outcome = try run(.logout(token: session.token), for: session, backend)
        if let failure = SessionFailure(outcome, subject: id.description) {
          warnings.append("the backend was not told: \(failure.message)")
        }
      } catch let error as any UserFacingError {
        warnings.append("the backend was not told: \(error.message)")
      }
    }
    return warnings
  }

  /// `status`: every account's session proved with its backend, at most `jobs` operations at
  /// once, SPEC §4 applied to each (an expired session is logged in again with the remembered
  /// password; nobody is asked for one). Accounts without a session are not contacted.
  /// `each` is told every entry as its check ends, with how many have ended, one at a time.
  public func status(
    of ids: [AccountID], jobs: Int, each: @escaping @Sendable (StatusEntry, _ done: Int) -> Void = { _, _ in }
  ) throws -> [StatusEntry] {
    var book = try ledger.index.load()
    let results = StatusResults(count: ids.count, each: each)
    // Every token in one read, not one read per account; an account whose token was renewed
    // since is read again on its own.
    var tokens = ReadTokens(secrets: [:], book: book)
    if ids.contains(where: { book[$0]?.token != nil }) {
      let store = try ledger.secrets()
      try ledger.checkRecordedProvider(store, recorded: book.secretService)
      // The keyring is open: what interrupted commands left is settled first, every account.
      if try !ledger.settleIfUnsettled().isEmpty { book = try ledger.index.load() }
      tokens = ReadTokens(secrets: try store.lookupAll(kind: .token), book: book)
    }
    let read = tokens
    let checked = book
    forEachConcurrently(ids.count, width: jobs) { index in
      let id = ids[index]
      guard checked[id]?.token != nil else {
        results.set(index, StatusEntry(id: id, outcome: .noSession))
        return
      }
      // A keyring that did not answer once is not asked again (each would wait its deadline).
      if let silent = results.keyringSilence {
        results.set(index, StatusEntry(id: id, outcome: .error(status: silent.status, message: "not checked: \(silent.message)")))
        return
      }
      do {
        var flow = self
        flow.budget = OperationBudget(seconds: timeout)  // each account its own --timeout
        let session = try flow.session(for: id, prove: true, password: .rememberedOnly, read: read)
        results.set(index, StatusEntry(id: id, outcome: .valid(session)))
      } catch let failure as SessionFailure {
        results.set(index, StatusEntry(id: id, outcome: .failed(failure)))
      } catch {
        let failure = error as? any UserFacingError
        results.set(index, StatusEntry(id: id, outcome: .error(
          status: failure?.status ?? .failure, message: failure?.message ?? "\(error)")))
        if mayStillLand(error), let failure { results.keyringSilence = (failure.status, failure.message) }
      }
    }
    return results.entries(ids)
  }

  /// `backend test`: one LOGIN of `user` on `backendName` and, when it works, one LOGOUT,
  /// recording nothing. Throws the LOGIN's verdict; the LOGOUT's outcome comes back as it is.
  public func trial(_ user: String, on backendName: String, password source: PasswordSource) throws -> (AdapterSuccess, logout: AdapterOutcome) {
    let backend = try prepare(backendName)
    let id = AccountID(user: user, backend: backendName)
    let (password, _) = try password(for: id, source)
    let code = try oneTimeCode(for: id, backend, asking: source.mayAsk)
    let outcome = try run(.login(password: password, oneTimeCode: code?.code), user: user, sessionValues: [:], backend)
    guard case .ok(let success) = outcome else {
      throw SessionFailure(outcome, subject: id.description, oneTimeCode: code?.origin)!
    }
    guard let token = success.token else { return (success, .ok(AdapterSuccess())) }
    return (success, try run(.logout(token: token), user: user, sessionValues: success.sessionValues, backend))
  }

  // MARK: - Steps

  /// The stored session of `id`, nil when the index claims no token. A claimed token the
  /// keyring does not have is a claim settled away: no session.
  func storedSession(_ id: AccountID, read: ReadTokens? = nil) throws -> ActiveSession? {
    let book = try ledger.index.load()
    guard let account = book[id] else { throw AccountLookupError.unknown(id.description, backend: nil, suggestions: []) }
    guard let record = account.token else { return nil }
    let key = SecretKey(id, .token)
    // Read with every other token (`status`), else on its own; from the recorded provider only.
    guard let token = try read?.token(key, for: ObservedSession(account))
      ?? ledger.claimedToken(of: account, in: book, at: now())
    else {
      _ = try? ledger.settle(id)
      return nil
    }
    return ActiveSession(
      id: id, token: token, sessionValues: account.session, expiresAt: record.expiresAt, origin: .stored,
      observed: ObservedSession(account))
  }

  private func tokenState(_ session: ActiveSession) -> TokenState {
    guard let expiresAt = session.expiresAt else { return .valid(until: nil) }
    return expiresAt > now() ? .valid(until: expiresAt) : .expired(at: expiresAt)
  }

  /// The password for a login: the given one, the remembered one, or the answer to `ask`.
  /// `remembered`: it came from the keyring.
  func password(for id: AccountID, _ source: PasswordSource) throws -> (SecretBytes, remembered: Bool) {
    if case .given(let password) = source { return (password, false) }
    let book = try ledger.index.load()
    if book[id]?.remembered == true, let password = try ledger.claimedSecret(SecretKey(id, .password), recorded: book.secretService) {
      notice("using the remembered password of \(id)")
      return (password, true)
    }
    if case .rememberedOrAsk(let ask) = source, let password = try ask(id) { return (password, false) }
    throw SessionFailure.loginRequired(id)
  }

  /// One LOGIN, and its verdict carried out. A rejected password clears what is remembered only
  /// when it was the remembered one (changed elsewhere); a mistyped one changes nothing. When
  /// the backend needs a one-time code, it is got right before the LOGIN (asking a person only
  /// when `asking`); a rejection then may be the code's, so it forgets nothing.
  func logIn(
    _ id: AccountID, _ password: SecretBytes, rememberedOne: Bool, remember: Bool, takeSlot: Bool,
    _ backend: PreparedBackend, asking: Bool, again: Bool = false
  ) throws -> ActiveSession {
    let code = try oneTimeCode(for: id, backend, asking: asking)
    let outcome = try run(
      .login(password: password, oneTimeCode: code?.code), user: id.user, sessionValues: [:], backend)
    guard case .ok(let success) = outcome else {
      if case .wrongPassword = outcome, rememberedOne, code == nil {
        if case .applied(let transition) = try ledger.record(.passwordRejected, for: id, at: now()) {
          throw SessionFailure(outcome, subject: id.description, next: transition.next)!
        }
      }
      throw SessionFailure(outcome, subject: id.description, oneTimeCode: code?.origin)!
    }
    guard let token = success.token else { throw SessionFailure.noToken(id) }
    if let (variable, problem) = SessionExport.problem(token: token, userID: success.sessionValues["userId"]) {
      throw SessionFailure.unexportable(id, variable: variable, problem: problem)
    }
    let at = now()
    let expiresAt = Timestamp.lifetime(success.expiresIn).map { at.adding(seconds: $0) }
    let login = LoginRecord(expiresAt: expiresAt, session: success.sessionValues, generation: Self.newGeneration())
    try ledger.record(
      .loggedIn(remember: remember, takeSlot: takeSlot), for: id, token: token, password: remember ? password : nil,
      login: login, at: at)
    var account = Account(id: id, addedAt: at)
    account.lastLogin = at
    account.token = TokenRecord(expiresAt: expiresAt, generation: login.generation)
    return ActiveSession(
      id: id, token: token, sessionValues: success.sessionValues, expiresAt: expiresAt,
      origin: again ? .loggedInAgain : .loggedIn, observed: ObservedSession(account))
  }

  /// 16 random hex digits naming a new session.
  static func newGeneration() -> String {
    let text = String(UInt64.random(in: .min ... .max), radix: 16)  // the system's generator
    return String(repeating: "0", count: 16 - text.count) + text
  }

  /// A backend's verdict other than ok on `session`: SPEC §4 carried out. Returns the session
  /// to go on with when the rules log in again (at most once: `mayLogInAgain`), else throws
  /// the verdict's failure.
  private func react(
    to outcome: AdapterOutcome, on session: ActiveSession, _ backend: PreparedBackend, mayLogInAgain: Bool,
    asking: Bool
  ) throws -> ActiveSession {
    let id = session.id
    let event: SessionEvent
    switch outcome {
    case .ok: return session
    case .sessionExpired: event = .tokenExpired
    case .kicked: event = .takenOver
    case .wrongPassword: event = .passwordRejected
    case .upgradeRequired: event = .upgradeRequired
    case .backendError, .adapterFailed: throw SessionFailure(outcome, subject: id.description)!
    }
    return try locks.exclusive(id) {
      switch try ledger.record(event, for: id, observed: session.observed, leased: leased, at: now()) {
      case .stale:
        // Another command renewed the session while this one asked the backend: take its
        // session (as this command's one login again). If it ended instead, say so; never log
        // in again then, since the other command may have been told "signed in elsewhere".
        guard mayLogInAgain, let current = try storedSession(id), case .valid = tokenState(current) else {
          throw SessionFailure(outcome, subject: id.description)!
        }
        var again = current
        again.origin = .loggedInAgain
        return again
      case .applied(let transition) where transition.next == .loginAgainOnce:
        guard mayLogInAgain else {
          guard case .sessionExpired(let message) = outcome else { throw SessionFailure(outcome, subject: id.description)! }
          throw SessionFailure.expiredAgain(subject: id.description, message: message)
        }
        guard let password = try ledger.claimedSecret(SecretKey(id, .password), recorded: try ledger.index.load().secretService) else {
          throw SessionFailure.loginRequired(id)
        }
        let what = event == .takenOver ? "was taken over by another login (the account is leased)" : "expired"
        notice("\(id): the session \(what); logging in again with the remembered password")
        return try logIn(
          id, password, rememberedOne: true, remember: false, takeSlot: false, backend, asking: asking, again: true)
      case .applied(let transition):
        throw SessionFailure(outcome, subject: id.description, next: transition.next)!
      }
    }
  }

  private func run(_ operation: AdapterOperation, for session: ActiveSession, _ backend: PreparedBackend) throws -> AdapterOutcome {
    try run(operation, user: session.id.user, sessionValues: session.sessionValues, backend)
  }

  private func run(
    _ operation: AdapterOperation, user: String, sessionValues: [String: String], _ backend: PreparedBackend
  ) throws -> AdapterOutcome {
    guard let left = budget.next() else { return budget.spentOutcome }
    let request = AdapterRequest(
      adapter: backend.config.adapter, backend: backend.config.name, settings: backend.config.settings, user: user,
      sessionValues: sessionValues, operation: operation, timeout: left)
    let outcome = try host().run(request, secretSettings: backend.secretSettings, in: searchPath)
    // An operation given only the rest of the budget that failed when it ran out was cut short
    // by it: say so, rather than "did not answer within 0.8 s".
    switch outcome {
    case .backendError, .adapterFailed: return left < timeout && budget.isSpent ? budget.spentOutcome : outcome
    default: return outcome
    }
  }

  // MARK: - Backends

  /// A backend ready for its adapter: the adapter described, the settings checked against its
  /// declaration, the secret settings read from the keyring.
  public struct PreparedBackend: Sendable {
    public var config: BackendConfig
    public var adapter: AdapterDescription
    public var secretSettings: [String: SecretBytes]
  }

  /// Prepares `name`, once per flow.
  public func prepare(_ name: String) throws -> PreparedBackend {
    if let ready = prepared.get(name) { return ready }
    let config = try ledger.config.load()
    let backend = try config.backend(named: name)
    let adapter = try host().describe(backend.adapter, in: searchPath)
    let problems = BackendSettingsCheck(adapter: adapter).problems(settings: backend.settings, secretNames: backend.secretSettings)
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
    let ready = PreparedBackend(config: backend, adapter: adapter, secretSettings: values)
    prepared.set(name, ready)
    return ready
  }

  /// Forgets the backends prepared so far: the next `prepare` reads the configuration and the
  /// keyring again (`--refresh`, whose flow lasts as long as a command runs).
  func forgetPreparedBackends() {
    prepared.clear()
  }
}

/// The backends a flow has prepared, shared by its threads.
private final class PreparedBackends: @unchecked Sendable {
  private var backends: [String: SessionFlow.PreparedBackend] = [:]
  private let lock = Mutex(())

  func get(_ name: String) -> SessionFlow.PreparedBackend? { lock.withLock { _ in backends[name] } }
  func set(_ name: String, _ backend: SessionFlow.PreparedBackend) { lock.withLock { _ in backends[name] = backend } }
  func clear() { lock.withLock { _ in backends = [:] } }
}

/// One line of `status`.
public struct StatusEntry: Sendable {
  public enum Outcome: Sendable {
    /// No token: not contacted.
    case noSession
    /// The backend confirmed the session, or it was logged in again.
    case valid(ActiveSession)
    /// The backend's verdict, after the rules were applied.
    case failed(SessionFailure)
    /// Something else failed (the keyring, the adapter host).
    case error(status: ExitStatus, message: String)
  }

  public var id: AccountID
  public var outcome: Outcome
}

private final class StatusResults: @unchecked Sendable {
  private var slots: [StatusEntry.Outcome?]
  private var silence: (status: ExitStatus, message: String)?
  private let lock = Mutex(())

  /// The keyring's first timeout, after which no account asks it again.
  var keyringSilence: (status: ExitStatus, message: String)? {
    get { lock.withLock { _ in silence } }
    set { lock.withLock { _ in if silence == nil { silence = newValue } } }
  }

  private var done = 0
  private let each: @Sendable (StatusEntry, Int) -> Void

  init(count: Int, each: @escaping @Sendable (StatusEntry, Int) -> Void) {
    slots = Array(repeating: nil, count: count)
    self.each = each
  }

  /// Keeps `entry` and tells `each` under the lock, so that it is told one entry at a time.
  func set(_ index: Int, _ entry: StatusEntry) {
    lock.withLock { _ in
      slots[index] = entry.outcome
      done += 1
      each(entry, done)
    }
  }

  func entries(_ ids: [AccountID]) -> [StatusEntry] {
    lock.withLock { _ in zip(ids, slots).map { StatusEntry(id: $0, outcome: $1 ?? .noSession) } }
  }
}

/// Tokens read all at once, with the index as it was before the read: a token is used only for
/// the session the index still names, so a session renewed since is read again rather than
/// paired with an older token.
struct ReadTokens: @unchecked Sendable {
  let secrets: [SecretKey: SecretBytes]
  let book: AccountBook

  func token(_ key: SecretKey, for session: ObservedSession) -> SecretBytes? {
    let id = AccountID(user: key.account, backend: key.backend)
    guard ObservedSession(book[id]) == session else { return nil }
    return secrets[key]
  }
}
