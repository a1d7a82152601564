import AccountsContract
import AccountsSystem
import SecretMemory

// The entry points: one per session command (SPEC §4 through `SessionRules` and the ledger).
extension SessionFlow {
  /// `login`: logs `id` in (saving it when new) with the password from `source`.
  public func logIn(_ id: AccountID, password source: PasswordSource, remember: Bool, takeSlot: Bool) throws -> ActiveSession {
    let backend = try prepare(id.backend)
    try allow(.logIn, id)  // before a password is read or asked for; again under the lock
    let (password, remembered) = try credentials(for: id, source, backend)
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
    try allow(.logIn, id)
    // An expired session with a refresh token is renewed, as every command renews one.
    // When it cannot be renewed so (the refresh token refused, nothing remembered), a login
    // follows, as for a session without one.
    if try ledger.index.load()[id]?.token?.refreshable == true {
      do {
        _ = try locks.exclusive(id) { try renewOnce(id, backend, asking: source.mayAsk, because: "the session expired") }
        if let renewed = try reuse(id) { return (renewed, false) }
      } catch let failure as SessionFailure where failure.status == .sessionEnded || failure == .loginRequired(id) {
        guard try ledger.index.load()[id]?.token == nil else { throw failure }
      }
    }
    let (password, remembered) = try credentials(for: id, source, backend)
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
    try allow(.logIn, id)
    let (password, remembered) = try credentials(for: id, source, backend)
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
    var proved = stored
    proved.origin = .proved
    if try checkAsksNothing(id.backend) { return proved }
    let backend = try prepare(id.backend)
    let outcome = try run(.check(token: stored.token), for: stored, backend)
    guard case .ok = outcome else {
      return try react(to: outcome, on: stored, backend, mayLogInAgain: true, asking: asking)
    }
    return proved
  }

  /// Whether a CHECK of the backend would answer OK without asking it, as its adapter said to
  /// an earlier load of the same file (ABI 1.2): a session within its expiry is then proved as
  /// the CHECK would prove it, without loading the adapter or reading its secret settings.
  /// Learnt once per backend and flow (`PreparedBackends`).
  private func checkAsksNothing(_ name: String) throws -> Bool {
    if let known = prepared.checkAsksNothing(name) { return known }
    if prepared.get(name) != nil { return false }  // loaded already: the CHECK costs nothing more
    let backend = try ledger.config.load().backend(named: name)
    let asksNothing =
      try host().knownSessionCheck(backend.adapter, in: searchPath).map {
        !$0.asks(settings: backend.settings, secretNames: backend.secretSettings)
      } ?? false
    prepared.setCheckAsksNothing(name, asksNothing)
    return asksNothing
  }

  /// `lease`: the session of an account just leased, proved, under the account's session lock:
  /// a login another command began before the lease (and which may still land) finishes first,
  /// and its session is the one proved and handed on, never ended by it afterwards.
  public func leasedSession(for id: AccountID) throws -> ActiveSession {
    try locks.exclusive(id) { try session(for: id, prove: true, password: .rememberedOnly) }
  }

  /// `request`: one CALL with the session of `id`; on "expired", logs in again once and
  /// retries once. Returns the backend's answer.
  public func call(
    _ id: AccountID, method: String, path: String, parameters: [(String, String)], password source: PasswordSource
  ) throws -> AdapterSuccess {
    (try? host())?.expectRequest()  // libcurl loads while the session is read
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
  /// `event` is `.loggedOut`, or `.tokenRejected` for a token a client (git) found rejected:
  /// then the account keeps the slot.
  ///
  /// A session with a refresh token is told first (its adapter revokes both tokens): a
  /// refresh token renews for months, and once forgotten here nobody could revoke it. A kill
  /// between the two leaves revoked tokens here, which the next command finds rejected.
  ///
  /// It takes no session lock (a login a person approves may hold it for half an hour). A
  /// renewal that lands while a session with a refresh token is being revoked makes the record
  /// stale: the renewed session is then revoked and ended too (twice at most; then ended
  /// whatever it is). A renewal that lands after the record finds its session ended and revokes
  /// what it got (`refresh`).
  public func logOut(_ id: AccountID, because event: SessionEvent = .loggedOut) throws -> [String] {
    try allow(.logOut, id)
    var warnings: [String] = []
    for round in 0..<3 {
      let session = try storedSession(id)
      if session == nil, round == 0 { warnings.append("\(id) had no session") }
      let book = try ledger.index.load()
      let refreshToken =
        session != nil && book[id]?.token?.refreshable == true
        ? try ledger.claimedSecret(SecretKey(id, .refreshToken), recorded: book.secretService) : nil
      if let session, let refreshToken { try tellBackend(session, refreshToken: refreshToken, &warnings) }
      let observed = refreshToken == nil || round == 2 ? nil : session?.observed
      if case .stale = try ledger.record(event, for: id, observed: observed, at: now()) { continue }
      if try ledger.index.load().unsettled.contains(id) {
        // The index no longer claims the token; the keyring could not delete it yet.
        warnings.append("the keyring kept the token for now; the next command on \(id) deletes it")
      }
      if let session, refreshToken == nil { try tellBackend(session, refreshToken: nil, &warnings) }
      break
    }
    return warnings
  }

  /// Before `remove`, `clear` or `backend remove --force` forget accounts: each session that
  /// holds a refresh token is revoked at its provider, best effort (a failure is a warning),
  /// since a refresh token renews for months and nobody could revoke it once forgotten here.
  /// Other sessions end with their secrets, as they always did. Returns the warnings.
  /// One read of the index and the keyring's items read as they are (the accounts are about
  /// to go, so nothing is settled): linear in the accounts. When --timeout runs out, the rest
  /// are named in one warning.
  public func revokeRefreshTokens(of ids: [AccountID]) -> [String] {
    var warnings: [String] = []
    guard let book = try? ledger.index.load(), let store = try? ledger.secrets() else { return warnings }
    let renewable = ids.filter { book[$0]?.token?.refreshable == true }
    for (position, id) in renewable.enumerated() {
      guard !budget.isSpent else {
        warnings.append("\(renewable.count - position) more session(s) with a refresh token were not revoked: --timeout ran out")
        break
      }
      do {
        guard let account = book[id], let token = try store.lookup(SecretKey(id, .token)),
          let refreshToken = try store.lookup(SecretKey(id, .refreshToken))
        else { continue }
        let session = ActiveSession(
          id: id, token: token, sessionValues: account.session, expiresAt: account.token?.expiresAt, origin: .stored,
          observed: ObservedSession(account))
        var told: [String] = []
        try tellBackend(session, refreshToken: refreshToken, &told)
        warnings += told.map { "\(id): \($0)" }
      } catch {
        warnings.append("\(id): the provider was not told: \((error as? any UserFacingError)?.message ?? "\(error)")")
      }
    }
    return warnings
  }

  /// LOGOUT of `session` at its backend, best effort: a failure is a warning.
  private func tellBackend(_ session: ActiveSession, refreshToken: SecretBytes?, _ warnings: inout [String]) throws {
    do {
      let backend = try prepare(session.id.backend)
      let outcome = try run(.logout(token: session.token, refreshToken: refreshToken), for: session, backend)
      if let failure = SessionFailure(outcome, subject: session.id.description) {
        warnings.append("the backend was not told: \(failure.message)")
      } else if case .ok(let success) = outcome, !success.message.isEmpty {
        warnings.append(success.message)
      }
    } catch let error as any UserFacingError {
      warnings.append("the backend was not told: \(error.message)")
    }
  }

  /// `backend test`: one LOGIN of `user` on `backendName` and, when it works, one LOGOUT,
  /// recording nothing. Throws the LOGIN's verdict; the LOGOUT's outcome comes back as it is.
  public func trial(_ user: String, on backendName: String, password source: PasswordSource) throws -> (AdapterSuccess, logout: AdapterOutcome) {
    let backend = try prepare(backendName)
    let id = AccountID(user: user, backend: backendName)
    try allow(.logIn, id)
    let (password, _) = try credentials(for: id, source, backend)
    let code = try oneTimeCode(for: id, backend, asking: source.mayAsk)
    let person = try person(for: id, backend, asking: source.mayAsk)
    let outcome = try run(
      .login(password: password, oneTimeCode: code?.code), user: user, sessionValues: [:], backend, person: person)
    guard case .ok(let success) = outcome else {
      throw SessionFailure(outcome, subject: id.description, oneTimeCode: code?.origin)!
    }
    guard let token = success.token else { return (success, .ok(AdapterSuccess())) }
    let logout = AdapterOperation.logout(token: token, refreshToken: success.refreshToken)
    return (success, try run(logout, user: user, sessionValues: success.sessionValues, backend))
  }
}
