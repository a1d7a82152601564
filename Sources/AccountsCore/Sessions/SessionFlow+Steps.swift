import AccountsContract
import AccountsSystem
import SecretMemory

// The steps the entry points share: the stored session, the password, a LOGIN, a verdict carried
// out, one adapter operation within the budget.
extension SessionFlow {
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

  func tokenState(_ session: ActiveSession) -> TokenState {
    guard let expiresAt = session.expiresAt else { return .valid(until: nil) }
    return expiresAt > now() ? .valid(until: expiresAt) : .expired(at: expiresAt)
  }

  /// What a login of `id` on `backend` goes with: the password (`password(for:)`), or, for a
  /// backend whose logins a person approves elsewhere, nothing, once it is sure a person can
  /// be shown what to do (a terminal, and a command that may ask).
  func credentials(for id: AccountID, _ source: PasswordSource, _ backend: PreparedBackend) throws -> (
    SecretBytes, remembered: Bool
  ) {
    guard !backend.loginNeeds.contains(.password) else { return try password(for: id, source) }
    _ = try person(for: id, backend, asking: source.mayAsk)
    return (SecretBytes.empty, false)
  }

  /// Who is shown a LOGIN of `id` on `backend`: nobody when its logins need no person; the
  /// terminal's person when the command may ask (`asking`) and one sits there; else
  /// `personRequired` (exit 3): such a login never runs unattended, nor to renew a session.
  func person(for id: AccountID, _ backend: PreparedBackend, asking: Bool) throws -> PersonChannel? {
    guard backend.loginNeeds.contains(.person) else { return nil }
    guard asking, let person else { throw SessionFailure.personRequired(id) }
    return person
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
    try allow(.logIn, id)
    let remember = remember && backend.loginNeeds.contains(.password)  // nothing to remember otherwise
    let person = try person(for: id, backend, asking: asking)
    let code = try oneTimeCode(for: id, backend, asking: asking)
    let outcome = try run(
      .login(password: password, oneTimeCode: code?.code), user: id.user, sessionValues: [:], backend, person: person)
    guard case .ok(let success) = outcome else {
      if case .wrongPassword = outcome, rememberedOne, code == nil {
        if case .applied(let transition) = try ledger.record(.passwordRejected, for: id, at: now()) {
          throw SessionFailure(outcome, on: id, next: transition.next)!
        }
      }
      if case .wrongPassword(let message) = outcome, !backend.loginNeeds.contains(.password) {
        throw SessionFailure.approvalDenied(id, message: message)
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
    let replaced = again ? nil : try replacedRenewableSession(id)
    try ledger.record(
      .loggedIn(remember: remember, takeSlot: takeSlot), for: id, token: token, password: remember ? password : nil,
      refreshToken: success.refreshToken, login: login, at: at)
    if let replaced, replaced.refreshToken != success.refreshToken { revoke((replaced.session, replaced.refreshToken), backend) }
    return ActiveSession(
      id: id, token: token, sessionValues: success.sessionValues, expiresAt: expiresAt,
      origin: again ? .loggedInAgain : .loggedIn, observed: ObservedSession(recorded: login, at: at))
  }

  /// The session a new login of `id` replaces, when it has a refresh token: a refresh token
  /// renews for months, so the provider is told to revoke it (and its token) rather than left
  /// holding a live one nobody keeps. Nil for other sessions, whose end is their backend's.
  private func replacedRenewableSession(_ id: AccountID) throws -> (session: ActiveSession, refreshToken: SecretBytes)? {
    let book = try ledger.index.load()
    guard book[id]?.token?.refreshable == true, let session = try storedSession(id),
      let refreshToken = try ledger.claimedSecret(SecretKey(id, .refreshToken), recorded: book.secretService)
    else { return nil }
    return (session, refreshToken)
  }

  /// LOGOUT of a session nobody keeps any more (replaced by a new login, or renewed by a
  /// refresh that another command overtook), best effort: a failure is a notice.
  private func revoke(_ replaced: (session: ActiveSession, refreshToken: SecretBytes?), _ backend: PreparedBackend) {
    let session = replaced.session
    let outcome = try? run(.logout(token: session.token, refreshToken: replaced.refreshToken), for: session, backend)
    if let outcome, let failure = SessionFailure(outcome, subject: session.id.description) {
      notice("the provider was not told to revoke the replaced session: \(failure.message)")
    }
  }

  /// 16 random hex digits naming a new session.
  public static func newGeneration() -> String {
    let text = String(UInt64.random(in: .min ... .max), radix: 16)  // the system's generator
    return String(repeating: "0", count: 16 - text.count) + text
  }

  /// A backend's verdict other than ok on `session`: SPEC §4 carried out. Returns the session
  /// to go on with when the rules log in again (at most once: `mayLogInAgain`), else throws
  /// the verdict's failure.
  func react(
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
      // Whether it logs in again depends on who holds the account's lease; the store is asked
      // only when its answer can change that.
      let account = try ledger.index.load()[id]
      let asks = SessionRules.leaseMatters(
        to: event, hasRememberedPassword: account?.remembered == true,
        hasRefreshToken: account?.token?.refreshable == true, claimed: claims(id))
      let lease = asks ? try leaseStanding(id) : .free
      switch try ledger.record(event, for: id, observed: session.observed, lease: lease, at: now()) {
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
        let what = event == .takenOver ? "was taken over by another login (this command leases the account)" : "expired"
        return try renewOnce(id, backend, asking: asking, because: "the session \(what)")
      case .applied(let transition):
        throw SessionFailure(outcome, on: id, next: transition.next, forcing: forcing)!
      }
    }
  }

  /// The one renewal of a session, under the account's session lock: by its refresh token
  /// when the index claims one, else (or when the provider refused it) a login with the
  /// remembered password. `why` begins the notice a person reads ("the session expired").
  func renewOnce(_ id: AccountID, _ backend: PreparedBackend, asking: Bool, because why: String) throws -> ActiveSession {
    if let account = try ledger.index.load()[id], account.token?.refreshable == true,
      let renewed = try refresh(account, backend, because: why)
    {
      return renewed
    }
    let book = try ledger.index.load()
    guard book[id]?.remembered == true, backend.loginNeeds.contains(.password),
      let password = try ledger.claimedSecret(SecretKey(id, .password), recorded: book.secretService)
    else { throw SessionFailure.loginRequired(id) }
    notice("\(id): \(why); logging in again with the remembered password")
    return try logIn(id, password, rememberedOne: true, remember: false, takeSlot: false, backend, asking: asking, again: true)
  }

  /// A REFRESH of `account`'s session, and its verdict carried out: the renewed session, or
  /// nil when the provider refused the refresh token and the rules go on to the remembered
  /// password (the refused one is forgotten with the token). Throws what else ends it.
  private func refresh(_ account: Account, _ backend: PreparedBackend, because why: String) throws -> ActiveSession? {
    let id = account.id
    try allow(.logIn, id)
    (try? host())?.expectRequest()  // libcurl loads while the refresh token is read
    let book = try ledger.index.load()
    guard let refreshToken = try ledger.claimedSecret(SecretKey(id, .refreshToken), recorded: book.secretService) else {
      return nil  // the keyring lost it: settled away, as a refused one would be
    }
    let observed = ObservedSession(account)
    let outcome = try run(.refresh(refreshToken: refreshToken), user: id.user, sessionValues: account.session, backend)
    switch outcome {
    case .ok(let success):
      guard let token = success.token else { throw SessionFailure.noToken(id) }
      if let (variable, problem) = SessionExport.problem(token: token, userID: success.sessionValues["userId"]) {
        throw SessionFailure.unexportable(id, variable: variable, problem: problem)
      }
      let at = now()
      let expiresAt = Timestamp.lifetime(success.expiresIn).map { at.adding(seconds: $0) }
      let session = account.session.merging(success.sessionValues) { $1 }
      let login = LoginRecord(expiresAt: expiresAt, session: session, generation: Self.newGeneration())
      let recorded = try ledger.record(
        .refreshed, for: id, token: token, refreshToken: success.refreshToken, login: login, observed: observed, at: at)
      if case .stale = recorded {
        // Another command renewed or ended the session meanwhile: the tokens this refresh got
        // are kept by nobody, so the provider is told to revoke them.
        let orphan = ActiveSession(
          id: id, token: token, sessionValues: session, expiresAt: expiresAt, origin: .loggedInAgain,
          observed: observed)
        revoke((orphan, success.refreshToken), backend)
        guard let current = try storedSession(id), case .valid = tokenState(current) else {
          throw SessionFailure.loginRequired(id)
        }
        return current
      }
      notice("\(id): \(why); renewed with the refresh token")
      return ActiveSession(
        id: id, token: token, sessionValues: session, expiresAt: expiresAt, origin: .loggedInAgain,
        observed: ObservedSession(recorded: login, at: at))
    case .sessionExpired:
      let asks = SessionRules.leaseMatters(
        to: .refreshRejected, hasRememberedPassword: account.remembered, claimed: claims(id))
      let lease = asks ? try leaseStanding(id) : .free
      switch try ledger.record(.refreshRejected, for: id, observed: observed, lease: lease, at: now()) {
      case .applied(let transition) where transition.next == .loginAgainOnce:
        notice("\(id): the provider refused the refresh token")
        return nil
      case .applied(let transition):
        throw SessionFailure(outcome, on: id, next: transition.next, forcing: forcing)!
      case .stale:
        guard let current = try storedSession(id), case .valid = tokenState(current) else {
          throw SessionFailure(outcome, subject: id.description)!
        }
        return current
      }
    default:
      throw SessionFailure(outcome, subject: id.description)!
    }
  }

  /// Where the lease of `id` stands for this command.
  func leaseStanding(_ id: AccountID) throws -> LeaseStanding {
    LeaseStanding(of: id, record: try leases.lease(of: id, now: now()), held: heldLeases, presented: presentedLeases)
  }

  /// Whether this command holds, or presents, a lease that may be the account's.
  func claims(_ id: AccountID) -> Bool { heldLeases[id] != nil || !presentedLeases.isEmpty }

  /// Throws when the lease of `id` keeps this command from `act` (SPEC §4's lease rows).
  func allow(_ act: SessionAct, _ id: AccountID) throws {
    let refusal = SessionRules.refusal(of: act, lease: try leaseStanding(id), forced: forced)
    if let failure = SessionFailure(refusing: act, of: id, next: refusal, forcing: forcing) { throw failure }
  }

  /// Throws `leaseLost` when this command held the lease of `id` and holds it no more; a store
  /// that cannot tell now is asked again before the next login.
  func requireLeaseKept(_ id: AccountID) throws {
    guard heldLeases[id] != nil, case .lost(let record)? = try? leaseStanding(id) else { return }
    throw SessionFailure.leaseLost(id, now: record)
  }

  func run(_ operation: AdapterOperation, for session: ActiveSession, _ backend: PreparedBackend) throws -> AdapterOutcome {
    try run(operation, user: session.id.user, sessionValues: session.sessionValues, backend)
  }

  /// `person`: where a LOGIN a person approves shows them what to do (`logIn` decides).
  func run(
    _ operation: AdapterOperation, user: String, sessionValues: [String: String], _ backend: PreparedBackend,
    person: PersonChannel? = nil
  ) throws -> AdapterOutcome {
    guard let left = budget.next() else { return budget.spentOutcome }
    let request = AdapterRequest(
      adapter: backend.config.adapter, backend: backend.config.name, settings: backend.config.settings, user: user,
      sessionValues: sessionValues, operation: operation, timeout: left, person: person)
    let outcome = try host().run(request, secretSettings: backend.secretSettings, in: searchPath)
    // The person's wait was theirs: the command's other calls get the whole --timeout.
    if person != nil { budget.restart() }
    // An operation given only the rest of the budget that failed when it ran out was cut short
    // by it: say so, rather than "did not answer within 0.8 s".
    switch outcome {
    case .backendError, .adapterFailed: return left < timeout && budget.isSpent ? budget.spentOutcome : outcome
    default: return outcome
    }
  }
}
