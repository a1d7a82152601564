import AccountsContract
import AccountsSystem
import SecretMemory
/// The one place that changes the keyring and the index (or the config) together, so that they
/// agree after every command, whether it succeeded, failed, crashed or raced others (SPEC §2):
/// every item in the keyring belongs to an account or backend the files name, and every
/// password or token the index claims is in the keyring. Commands never do it by hand.
///
/// The rules, in the order every change follows them:
/// 1. **One writer at a time.** A change takes the writers' lock of the file first and holds
///    it until the keyring and the file agree again; it decides from the file as re-read under
///    the lock. No other `accounts` process can act on the same account in between (and no two
///    processes ever delete the same item at once). Where both locks are needed, config.json's
///    is taken before the index's.
/// 2. **Intent before effect.** Before the keyring is touched, the account is marked unsettled
///    in the file. A process killed between the keyring change and the file's final write leaves
///    that mark, and the next change settles the account before doing its own work. A mark a
///    command found is left for settling; a command clears only the mark it set.
/// 3. **A secret is stored before the index claims it; the index forgets a secret only once it
///    is deleted** (or the account goes with it).
/// 4. **Undo what the file could not record.** When the final write fails (a full disk, a
///    read-only file system), the keyring change is taken back: a new password is deleted, a
///    replaced one is put back.
/// 5. **Settling** makes the two agree without inventing anything: a claim whose item is gone
///    is dropped, an item nothing claims is deleted (an interrupted command's secret never
///    comes back as remembered), and every item of an account the index no longer names is
///    deleted. A keyring call that timed out may still land later: its account stays unsettled,
///    and no further keyring call is made in that command (the keyring is not answering).
/// 6. **The right keyring.** The files record which program keeps their secrets; when another
///    answers (D-Bus started gnome-keyring because KeePassXC is not running), nothing is stored,
///    deleted, settled or read there while a file claims a secret: its emptiness would read as
///    "every secret is gone", and an old item of its as the secret. Unless the user adopts it
///    (`adoptSecretService`): then every claim of both files is settled against it first, and
///    both record it once that succeeded. A file that claims nothing moves to the provider that
///    answers on its own. A file records a provider only once a command's keyring work there
///    succeeded, never because a command that failed tried it.
public struct Ledger {
  public let index: IndexStore
  public let config: ConfigStore
  let secrets: () throws -> SecretStore
  /// ACCOUNTS_ADOPT_SECRET_SERVICE: accept the provider that answers now.
  let adoptSecretService: Bool
  /// Copies of tokens that `claimedToken` may serve without the Secret Service; nil: none.
  let tokenCache: TokenCache?

  public init(
    index: IndexStore, config: ConfigStore, adoptSecretService: Bool = false, tokenCache: TokenCache? = nil,
    secrets: @escaping () throws -> SecretStore
  ) {
    self.index = index
    self.config = config
    self.adoptSecretService = adoptSecretService
    self.tokenCache = tokenCache
    self.secrets = secrets
  }

  /// Rule 6 for a reader of a secret the files claim (`password`, a backend's secret settings):
  /// throws `providerChanged` when another provider answers than the one `recorded` (by the
  /// index or the config) keeps it in. One D-Bus call (who owns the name) when a provider is
  /// recorded; none otherwise.
  public func checkRecordedProvider(_ store: SecretStore, recorded: String?) throws {
    guard let recorded, let current = try store.providerName(), current != recorded else { return }
    throw SecretStoreError.providerChanged(stored: recorded, current: current)
  }

  /// A secret the index or the config claims, read only from the provider `recorded` keeps it
  /// in: `providerChanged` when another answers, whether or not that one has an item of the
  /// name (an old one would be taken for the secret, its lack for a deleted one).
  /// An account a command left unsettled is settled first (its secret may be one the index
  /// does not claim).
  public func claimedSecret(_ key: SecretKey, recorded: String?) throws -> SecretBytes? {
    let store = try secrets()
    try checkRecordedProvider(store, recorded: recorded)
    if key.kind == .password || key.kind == .token || key.kind == .refreshToken || key.kind == .otp {
      try settleIfUnsettled([AccountID(user: key.account, backend: key.backend)])
    }
    return try store.lookup(key)
  }

  /// ACCOUNTS_ADOPT_SECRET_SERVICE (rule 6): when set and a file claims secrets that another
  /// provider than the one answering keeps, every claim of both files is settled against the
  /// one answering (what it does not hold is forgotten), and both record it. All or nothing:
  /// when the new provider fails on the way, neither file changes. Every command that reaches
  /// the keyring calls this first, readers too, outside any lock of the files. Without the
  /// variable it does nothing at all.
  public func adoptSecretServiceIfAsked() throws {
    guard adoptSecretService else { return }
    let store = try secrets()
    guard let current = try store.providerName() else { return }
    try config.withLock { config in
      try index.withLock { index in
        var configuration = config.content
        var book = index.content
        let moveConfig = configuration.claimsSecrets(keptByOtherThan: current)
        let moveIndex = book.claimsSecrets(keptByOtherThan: current)
        if moveConfig { try adopt(current, &configuration, store) }
        if moveIndex { try adopt(current, &book, store) }
        if moveConfig { try config.save(configuration) }
        if moveIndex { try index.save(book) }
      }
    }
  }

  /// Settles every claim of `document` against `store`, the provider `current` answering now,
  /// and records it (what it does not hold is forgotten).
  private func adopt<Document: SecretClaimingDocument>(
    _ current: String, _ document: inout Document, _ store: SecretStore
  ) throws {
    for holder in document.holdersClaimingSecrets { document.markUnsettled(holder) }
    for holder in document.unsettled { try settle(holder, &document, store) }
    document.secretService = current
  }

  /// Saves a new account; with `password`, remembers it; with `otp`, keeps its TOTP seed (both
  /// stored before the index claims them, or neither). Throws `alreadySaved` when another
  /// process saved it first, and `unknownBackend` when its backend was removed meanwhile.
  public func add(_ account: Account, password: SecretBytes?, otp: OTPSeed? = nil) throws {
    if password != nil || otp != nil { try adoptSecretServiceIfAsked() }
    try index.withLock { index in
      var book = index.content
      guard book[account.id] == nil else { throw AccountBookError.alreadySaved(account.id) }
      // Checked under the index lock: `removeBackend` holds it while it removes a backend.
      _ = try config.load().backend(named: account.id.backend)
      let id = account.id
      var secrets: [(key: SecretKey, secret: SecretBytes)] = []
      if let password { secrets.append((passwordKey(id), password)) }
      if let otp { secrets.append((SecretKey(id, .otp), otp.canonicalText)) }
      guard !secrets.isEmpty else {
        try book.add(account)
        try index.save(book)
        return
      }
      var saved = account
      saved.remembered = password != nil
      saved.otp = otp != nil
      try carryOut(
        SecretChange(
          of: id, inKeyring: { store in for (key, secret) in secrets { try store.store(secret, for: key) } },
          claim: { book in try book.add(saved) },
          // The index could not take the claims: they go too.
          undo: { store in for (key, _) in secrets { try? store.delete(key) } }),
        &book, &index)
    }
  }

  /// Replaces the remembered password of a saved account (or starts remembering one).
  public func replacePassword(of id: AccountID, with password: SecretBytes) throws {
    try withSavedAccount(id) { account, book, index in
      try changeSecret(passwordKey(id), claimed: account.remembered, to: password, &book, &index) {
        $0.remembered = true
      }
    }
  }

  /// The key a remembered password of `id` is stored under, carrying its backend's base_url as
  /// the item's web address (`SecretKey.url`, KeePassXC's URL). A config.json that cannot be
  /// read now costs the item its URL, never the password.
  func passwordKey(_ id: AccountID) -> SecretKey {
    var key = SecretKey(id, .password)
    key.url = (try? config.load())?[id.backend]?.settings["base_url"]
    return key
  }

  /// `body` with the index's lock held, given `id`'s account as the index holds it now (the
  /// provider adopted first when asked); `unknown` when it is not saved (removed meanwhile).
  func withSavedAccount<Result>(
    _ id: AccountID, _ body: (Account, inout AccountBook, inout LockedDocument<AccountBook>) throws -> Result
  ) throws -> Result {
    try adoptSecretServiceIfAsked()
    return try index.withLock { index in
      var book = index.content
      guard let account = book[id] else {
        throw AccountLookupError.unknown(id.description, backend: nil, suggestions: [])
      }
      return try body(account, &book, &index)
    }
  }

  /// Rules 1 to 4 for one secret of a saved account, stored (`value`) or deleted (nil) under
  /// the index's lock: the provider checked (rule 6, before the old item is read to be kept),
  /// the intent on disk, the keyring changed, then `claim` records it in the index; when the
  /// index cannot be written, the old item is put back (a new one deleted). `claimed`: the
  /// index claims the secret now, so there is an old item to keep.
  func changeSecret(
    _ key: SecretKey, claimed: Bool, to value: SecretBytes?, _ book: inout AccountBook,
    _ index: inout LockedDocument<AccountBook>, claim: @escaping (inout Account) -> Void
  ) throws {
    let id = AccountID(user: key.account, backend: key.backend)
    let store = try secrets()
    _ = try checkProvider(store, book)
    let previous = claimed ? try store.lookup(key) : nil
    try carryOut(
      SecretChange(
        of: id,
        inKeyring: { store in if let value { try store.store(value, for: key) } else { try store.delete(key) } },
        claim: { book in book.update(id, claim) },
        undo: { store in
          if let previous { try? store.store(previous, for: key) } else if value != nil { try? store.delete(key) }
        }),
      &book, &index)
  }

  /// What `forget` did: the accounts forgotten, those that were not saved (any more), and the
  /// keyring error that stopped it, after which the remaining accounts were left as they were.
  public struct Forgotten {
    public var removed: [AccountID] = []
    public var missing: [AccountID] = []
    public var failure: Error?
  }

  /// Forgets accounts with every secret of theirs. An account whose secrets cannot be deleted
  /// stays saved, unless the index claims none of them: then the keyring's state is no reason to
  /// keep it, and it stays unsettled until a later command can sweep it. The first keyring
  /// failure stops the sweep (a locked or absent keyring fails every account alike).
  public func forget(_ ids: [AccountID]) throws -> Forgotten {
    try adoptSecretServiceIfAsked()
    return try index.withLock { index in try forget(ids, &index) }
  }

  /// `forget` with the index's lock held.
  func forget(_ ids: [AccountID], _ index: inout LockedDocument<AccountBook>) throws -> Forgotten {
    var book = index.content
    var result = Forgotten()
    let targets = ids.filter { book[$0] != nil }
    result.missing = ids.filter { book[$0] == nil }
    guard !targets.isEmpty else { return result }
    var store: SecretStore?
    var provider: String?
    do {
      store = try secrets()
      provider = try checkProvider(store!, book)
      try settleUnsettled(&book, store!)
    } catch {
      result.failure = error  // no keyring call follows; accounts that claim nothing still go
    }
    let unsettledBefore = Set(book.unsettled)  // an earlier command's mark is not this one's to clear
    for id in targets {
      forgetCachedToken(id)
      book.markUnsettled(id)
    }
    try index.save(book)
    for id in targets {
      let account = book[id]!
      let claimed = account.claimsSecrets
      if result.failure == nil, let store {
        do {
          try store.deleteAll(backend: id.backend, account: id.user)
          book.remove(id)
          book.markSettled(id)
          result.removed.append(id)
        } catch {
          result.failure = error
          if claimed {
            recover(id, after: error, &book, &index, store)  // it stays
          } else {
            book.remove(id)  // it stays unsettled: its leftovers are swept later
            result.removed.append(id)
          }
        }
      } else if claimed {
        if !unsettledBefore.contains(id) { book.markSettled(id) }  // not tried: as it was
      } else {
        book.remove(id)
        result.removed.append(id)
      }
    }
    if result.failure == nil, let provider { book.secretService = provider }
    try index.save(book)
    return result
  }
}
