import AccountsContract
import AccountsSystem
import SecretMemory
/// The sessions' half of the ledger: SPEC §4 carried out on the keyring and the index together,
/// by the ledger's rules (see `Ledger`). The session flow is its only caller; it decides nothing
/// but the order: `SessionRules` decides what changes, from the book as re-read under the lock.
extension Ledger {
  /// What `record` did.
  public enum Recorded: Sendable, Equatable {
    /// The transition was carried out.
    case applied(Transition)
    /// Another command logged the account in (or removed it) after the verdict was reached:
    /// the verdict is about a session that is no longer the account's, and nothing changed.
    case stale
  }

  /// Carries out the SPEC §4 transition of `event` on `id`.
  ///
  /// - `token`, `password`, `refreshToken`: what a login (`.loggedIn`) or a renewal by refresh
  ///   (`.refreshed`) stores: the new token, the password to remember when the event says so,
  ///   and the refresh token the backend gave (a login that got none drops the old one; a
  ///   renewal that got none keeps it).
  /// - `login`: the expiry and session values a login leaves in the index.
  /// - `lease`: where the account's lease stands for the command (`SessionRules`).
  /// - `observed`: for a backend's verdict on a session, the session it judged (nil: do not
  ///   check); when the account was logged in again meanwhile, or its session already ended (or
  ///   it was removed), the verdict is `.stale` and changes nothing, so one command never ends
  ///   another's fresh session.
  ///
  /// A login stores its secrets before the index claims them and saves the account when it is
  /// new; an ending forgets the claim in the index before it deletes the secret, so neither a
  /// crash nor a failed deletion can leave a claim without its secret (an unclaimed leftover is
  /// swept when the account is settled).
  @discardableResult
  public func record(
    _ event: SessionEvent, for id: AccountID, token: SecretBytes? = nil, password: SecretBytes? = nil,
    refreshToken: SecretBytes? = nil, login: LoginRecord? = nil, observed: ObservedSession? = nil,
    lease: LeaseStanding = .free, at now: Timestamp
  ) throws -> Recorded {
    try adoptSecretServiceIfAsked()
    return try index.withLock { index in
      var book = index.content
      if let observed, observed != ObservedSession(book[id]) { return .stale }
      let transition = SessionRules.transition(
        for: event, hasRememberedPassword: book[id]?.remembered == true,
        hasRefreshToken: book[id]?.token?.refreshable == true, lease: lease)
      if transition.storeToken {
        try storeLogin(
          id, transition, token: token, password: password, refreshToken: refreshToken, login: login, now, &book, &index)
      } else if transition.deleteToken || transition.deletePassword {
        try forgetSecrets(id, transition, now, &book, &index)
      } else if transition != Transition(next: transition.next) {
        guard book[id] != nil else { throw AccountLookupError.unknown(id.description, backend: nil, suggestions: []) }
        book.apply(transition, to: id, at: now)  // the slot alone: no secret changes
        try index.save(book)
      }
      return .applied(transition)
    }
  }

  /// A login: password (when remembered), token and refresh token stored, then the index
  /// claims them; a refresh token the new session does not keep goes once it is unclaimed.
  private func storeLogin(
    _ id: AccountID, _ transition: Transition, token: SecretBytes?, password: SecretBytes?, refreshToken: SecretBytes?,
    login: LoginRecord?, _ now: Timestamp, _ book: inout AccountBook, _ index: inout LockedDocument<AccountBook>
  ) throws {
    guard let token else { throw SessionFailure.noToken(id) }
    // A new account's backend must still exist: `removeBackend` holds this lock while it removes one.
    if book[id] == nil { _ = try config.load().backend(named: id.backend) }
    let claimedBefore = (
      password: book[id]?.remembered == true, token: book[id]?.token != nil,
      refreshToken: book[id]?.token?.refreshable == true
    )
    var applied = transition
    if password == nil { applied.storePassword = false }
    var record = login ?? LoginRecord(expiresAt: nil)
    record.refreshable = refreshToken != nil
    // A login that got no refresh token leaves the old one unclaimed: deleted after the claim.
    let dropsRefreshToken = claimedBefore.refreshToken && refreshToken == nil && !transition.keepsRefreshToken
    var stored: [SecretKey] = []
    let begun = try carryOut(
      SecretChange(
        of: id,
        inKeyring: { store in
          if transition.storePassword, let password {
            try store.store(password, for: passwordKey(id))
            stored.append(SecretKey(id, .password))
          }
          // The refresh token first: a provider that rotated it revoked the old one, so a
          // kill between the two must leave the new refresh token (with the old token, which
          // it renews), never the new token with a refresh token nobody accepts.
          if let refreshToken {
            try store.store(refreshToken, for: SecretKey(id, .refreshToken))
            stored.append(SecretKey(id, .refreshToken))
          }
          try store.store(token, for: SecretKey(id, .token))
          stored.append(SecretKey(id, .token))
        },
        claim: { book in book.apply(applied, to: id, login: record, at: now) },
        // The index could not take the claims: what it did not claim before goes again. A
        // replaced secret that it did claim stays replaced, which keeps the claim true.
        undo: { store in
          for key in stored {
            let claimed =
              switch key.kind {
              case .password: claimedBefore.password
              case .refreshToken: claimedBefore.refreshToken
              default: claimedBefore.token
              }
            if !claimed { try? store.delete(key) }
          }
        },
        settledWhenSaved: !dropsRefreshToken),
      &book, &index)
    if dropsRefreshToken { _ = deleteUnclaimed([SecretKey(id, .refreshToken)], begun, &book, &index) }
  }

  /// An ending (logout, expiry, take-over, rejection): the index forgets first, then the
  /// secrets go; an account whose deletion fails stays unsettled, and settling sweeps it.
  private func forgetSecrets(
    _ id: AccountID, _ transition: Transition, _ now: Timestamp, _ book: inout AccountBook,
    _ index: inout LockedDocument<AccountBook>
  ) throws {
    guard let account = book[id] else { return }  // removed meanwhile: nothing left to end
    forgetCachedToken(id)
    var doomed: [SecretKey] = []
    if transition.deleteToken, let token = account.token {
      doomed.append(SecretKey(id, .token))
      if token.refreshable { doomed.append(SecretKey(id, .refreshToken)) }
    }
    if transition.deletePassword, account.remembered { doomed.append(SecretKey(id, .password)) }
    guard !doomed.isEmpty else {
      book.apply(transition, to: id, at: now)
      try index.save(book)
      return
    }
    let store = try secrets()
    _ = try checkProvider(store, book)
    let begun = BegunChange<AccountBook>(
      holder: id, store: store, unsettledBefore: book.unsettled.contains(id), provider: nil)
    book.apply(transition, to: id, at: now)
    book.markUnsettled(id)
    try index.save(book)
    // The claim is gone; a leftover is swept when the account is next settled.
    _ = deleteUnclaimed(doomed, begun, &book, &index)
  }
}

/// Which session a verdict is about: its generation (and, for indexes from before
/// generations, its login time).
public struct ObservedSession: Sendable, Equatable {
  var generation: String?
  var lastLogin: Timestamp?
  var hasToken: Bool

  init(_ account: Account?) {
    generation = account?.token?.generation
    lastLogin = account?.lastLogin
    hasToken = account?.token != nil
  }

  /// The session a login (or a renewal) recorded with `login` at `at`.
  init(recorded login: LoginRecord, at: Timestamp) {
    generation = login.generation
    lastLogin = at
    hasToken = true
  }
}

extension Ledger {
  /// Settles `id` now: a claim the keyring contradicts is dropped (rule 5).
  func settle(_ id: AccountID) throws {
    try index.withLock { index in
      var book = index.content
      let store = try secrets()
      _ = try checkProvider(store, book)
      try settle(id, &book, store)
      try index.save(book)
    }
  }
}
