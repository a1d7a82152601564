import AccountsSystem

/// TOTP seeds (kind `otp`), kept by the rules of `Ledger` exactly as remembered passwords are:
/// stored before the index claims them, claimed no longer only once deleted, undone when the
/// index cannot record the change, settled after a command was killed in between.
extension Ledger {
  /// Stores `seed` as the TOTP seed of a saved account, replacing the one it had.
  public func setOTPSeed(of id: AccountID, to seed: OTPSeed) throws {
    try adoptSecretServiceIfAsked()
    try index.withLock { index in
      var book = index.content
      guard let account = book[id] else {
        throw AccountLookupError.unknown(id.description, backend: nil, suggestions: [])
      }
      let store = try secrets()
      // Rule 6 before the old seed is read to be kept: never another provider's item.
      _ = try checkProvider(store, book)
      let key = SecretKey(id, .otp)
      let previous = account.otp ? try store.lookup(key) : nil
      let (_, carried, provider) = try begin(id, &book, &index)
      do {
        try store.store(seed.canonicalText, for: key)
      } catch {
        recover(id, after: error, &book, &index, store)
        throw error
      }
      book.update(id) { $0.otp = true }
      if !carried { book.markSettled(id) }
      book.secretService = provider ?? book.secretService
      do {
        try index.save(book)
      } catch {
        if let previous { try? store.store(previous, for: key) } else { try? store.delete(key) }
        throw error
      }
    }
  }

  /// Deletes the TOTP seed of a saved account. False when the index claims none. An account
  /// a command left unsettled is settled first even then (rules 2 and 5): an `otp set` killed
  /// before its claim left a seed nothing claims, and it is deleted here, not left behind.
  @discardableResult
  public func removeOTPSeed(of id: AccountID) throws -> Bool {
    try adoptSecretServiceIfAsked()
    return try index.withLock { index in
      var book = index.content
      guard let account = book[id] else {
        throw AccountLookupError.unknown(id.description, backend: nil, suggestions: [])
      }
      guard account.otp || book.unsettled.contains(id) else { return false }
      let store = try secrets()
      _ = try checkProvider(store, book)
      let key = SecretKey(id, .otp)
      // Put back if the index cannot record the change; an unclaimed one is not put back.
      let previous = account.otp ? try store.lookup(key) : nil
      let (_, carried, provider) = try begin(id, &book, &index)
      do {
        try store.delete(key)
      } catch {
        recover(id, after: error, &book, &index, store)
        throw error
      }
      book.update(id) { $0.otp = false }
      if !carried { book.markSettled(id) }
      book.secretService = provider ?? book.secretService
      do {
        try index.save(book)
      } catch {
        if let previous { try? store.store(previous, for: key) }
        throw error
      }
      return account.otp
    }
  }

  /// The TOTP seed the index claims for `id`, read from the keyring (after settling `id` if a
  /// command left it unsettled). Nil when the index claims none or the keyring has none.
  public func claimedOTPSeed(of id: AccountID, in book: AccountBook) throws -> OTPSeed? {
    guard book[id]?.otp == true,
      let text = try claimedSecret(SecretKey(id, .otp), recorded: book.secretService)
    else { return nil }
    do throws(OTPSeedError) {
      return try OTPSeed(parsing: text)
    } catch {
      throw CommandError(
        .failure, "the TOTP seed stored for \(id) cannot be read (\(error.message))",
        fix: "store it again with `accounts otp set \(book.shortestName(for: id))`")
    }
  }
}
