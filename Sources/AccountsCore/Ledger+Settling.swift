import AccountsContract
import AccountsSystem
import SecretMemory

/// Settling (rule 5 of `Ledger`): making the index and the keyring agree about accounts a
/// command left unsettled (killed or failed between the keyring and the index). Every command
/// that opens the Secret Service anyway settles the accounts it touches (`claimedSecret`), and
/// `status` and `doctor` settle all; `list`, `current` and completion read only the index and
/// never do.
extension AccountBook: SecretClaimingDocument {
  var holdersClaimingSecrets: [AccountID] { accounts.filter(\.claimsSecrets).map(\.id) }

  static func accountsWithCachedToken(_ id: AccountID) -> [AccountID] { [id] }

  /// An account the book no longer names keeps no item; one it names keeps exactly the
  /// secrets the book claims, and the book claims only those the keyring has.
  mutating func settle(_ id: AccountID, against store: SecretStore) throws {
    guard let account = self[id] else {
      try store.deleteAll(backend: id.backend, account: id.user)
      markSettled(id)
      return
    }
    let kinds = Set(try store.kinds(backend: id.backend, account: id.user))
    let hasPassword = kinds.contains(.password)
    let hasToken = kinds.contains(.token)
    let hasRefreshToken = kinds.contains(.refreshToken)
    let hasOTP = kinds.contains(.otp)
    // A refresh token lives only beside the token that claims it.
    let keepsRefreshToken = hasToken && hasRefreshToken && account.token?.refreshable == true
    if !account.remembered, hasPassword { try store.delete(SecretKey(id, .password)) }
    if account.token == nil, hasToken { try store.delete(SecretKey(id, .token)) }
    if hasRefreshToken, !keepsRefreshToken { try store.delete(SecretKey(id, .refreshToken)) }
    if !account.otp, hasOTP { try store.delete(SecretKey(id, .otp)) }
    update(id) { account in
      if !hasPassword { account.remembered = false }
      if !hasOTP { account.otp = false }
      if !hasToken {
        account.token = nil
        account.session = [:]
      }
      if !keepsRefreshToken { account.token?.refreshable = false }
    }
    markSettled(id)
  }
}

extension Ledger {
  /// Settles every unsettled account now; stops at the first keyring failure. (Commands
  /// settle on their way; this is for tests of the rule itself.)
  func settle() throws -> (settled: Int, left: Int) {
    try adoptSecretServiceIfAsked()
    return try index.withLock { index in
      var book = index.content
      let before = book.unsettled.count
      guard before > 0 else { return (0, 0) }
      let store = try secrets()
      let provider = try checkProvider(store, book)
      try settleUnsettled(&book, store)
      if book.unsettled.isEmpty, let provider { book.secretService = provider }
      try index.save(book)
      return (before - book.unsettled.count, book.unsettled.count)
    }
  }

  /// Settles `ids` (nil: every account) if a command left any of them unsettled; for a command
  /// that opens the Secret Service anyway. The index is read without the lock first, so a
  /// command that finds nothing to settle pays one file read, and no lock. Best effort like
  /// `settleUnsettled` (a keyring that fails stops it; one that does not answer is the
  /// command's error). Returns the accounts it settled.
  @discardableResult
  public func settleIfUnsettled(_ ids: [AccountID]? = nil) throws -> [AccountID] {
    func wanted(_ id: AccountID) -> Bool { ids.map { $0.contains(id) } ?? true }
    guard try index.load().unsettled.contains(where: wanted) else { return [] }
    return try index.withLock { index in
      var book = index.content
      let targets = book.unsettled.filter(wanted)
      guard !targets.isEmpty else { return [] }
      let store = try secrets()
      let provider = try checkProvider(store, book)
      var settled: [AccountID] = []
      for id in targets {
        do {
          try settle(id, &book, store)
          settled.append(id)
        } catch {
          if !settled.isEmpty { try index.save(book) }
          if mayStillLand(error) { throw error }
          return settled
        }
      }
      if book.unsettled.isEmpty, let provider { book.secretService = provider }
      try index.save(book)
      return settled
    }
  }
}

extension Ledger {
  /// Which of `keys` (the items of accounts' schema found in the keyring) nothing claims: a
  /// password or token of an account the index does not name or does not say has one, a
  /// backend's setting that config.json does not list, a setting of an account that is not
  /// saved. Items of an account or backend a command left unsettled are claimed (settling
  /// decides about them; a command may be storing them right now). For `doctor`: such items
  /// are reported, never deleted, since another installation may share the keyring.
  public func unclaimed(_ keys: [SecretKey]) throws -> [SecretKey] {
    let book = try index.load()
    let configuration = try config.load()
    return keys.filter { key in
      if key.account.isEmpty {
        guard case .setting(let name) = key.kind else { return true }
        if configuration.unsettled.contains(key.backend) { return false }
        let backend = configuration.backends.first { $0.name == key.backend }
        return backend?.secretSettings.contains(name) != true
      }
      let id = AccountID(user: key.account, backend: key.backend)
      if book.unsettled.contains(id) { return false }
      guard let account = book[id] else { return true }
      switch key.kind {
      case .password: return !account.remembered
      case .token: return account.token == nil
      case .refreshToken: return account.token?.refreshable != true
      case .otp: return !account.otp
      case .setting: return false
      }
    }
  }
}

extension Ledger {
  /// The secrets the index and config.json claim that are not among `keys` (the items of
  /// accounts' schema found in the keyring), in the files' order: a remembered password, token
  /// or TOTP seed, or a backend's secret setting, deleted outside accounts (python keyring's
  /// `delete_password`, `secret-tool clear`). Holders a command left unsettled are left out
  /// (settling decides about them). For `doctor`, which reports them with `restoringCommand`.
  public func missing(from keys: [SecretKey]) throws -> [SecretKey] {
    let present = Set(keys)
    let book = try index.load()
    let configuration = try config.load()
    var claimed: [SecretKey] = []
    for account in book.accounts where !book.unsettled.contains(account.id) {
      if account.remembered { claimed.append(SecretKey(account.id, .password)) }
      if account.token != nil { claimed.append(SecretKey(account.id, .token)) }
      if account.token?.refreshable == true { claimed.append(SecretKey(account.id, .refreshToken)) }
      if account.otp { claimed.append(SecretKey(account.id, .otp)) }
    }
    for backend in configuration.backends where !configuration.unsettled.contains(backend.name) {
      claimed += backend.secretSettings.map { SecretKey.setting($0, backend: backend.name) }
    }
    return claimed.filter { !present.contains($0) }
  }

  /// The command that puts back the secret of `key` (one `missing` found), for `doctor`'s fix.
  public static func restoringCommand(_ key: SecretKey) -> String {
    let id = AccountID(user: key.account, backend: key.backend)
    return switch key.kind {
    case .password: "accounts passwd \(id)"
    case .token, .refreshToken: "accounts login \(id)"
    case .otp: "accounts otp set \(id)"
    case .setting(let name): "accounts backend set \(key.backend) --secret \(name)"
    }
  }
}

extension Ledger {
  /// `password`: the remembered password of `id`, which must be saved; a password not
  /// remembered, or one the keyring lost (a change interrupted or failed, or deleted outside
  /// accounts), is exit 3 with the fix that stores it again.
  public func rememberedPassword(of id: AccountID, in book: AccountBook) throws -> SecretBytes {
    let name = book.shortestName(for: id)
    guard book[id]?.remembered == true else {
      throw CommandError(.loginRequired, "\(id) has no remembered password", fix: "remember one with `accounts passwd \(name)`")
    }
    if let password = try claimedSecret(SecretKey(id, .password), recorded: book.secretService) { return password }
    let why =
      book.unsettled.contains(id)
      ? ": a command that changed it was interrupted or failed" : " (deleted outside accounts?)"
    throw CommandError(
      .loginRequired, "the keyring has no password for \(id)\(why)", fix: "store it again with `accounts passwd \(name)`")
  }
}
