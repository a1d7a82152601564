import AccountsContract
import AccountsSystem

/// TOTP seeds (kind `otp`), kept by the rules of `Ledger` exactly as remembered passwords are:
/// stored before the index claims them, claimed no longer only once deleted, undone when the
/// index cannot record the change, settled after a command was killed in between.
extension Ledger {
  /// Stores `seed` as the TOTP seed of a saved account, replacing the one it had.
  public func setOTPSeed(of id: AccountID, to seed: OTPSeed) throws {
    try withSavedAccount(id) { account, book, index in
      try changeSecret(SecretKey(id, .otp), claimed: account.otp, to: seed.canonicalText, &book, &index) {
        $0.otp = true
      }
    }
  }

  /// Deletes the TOTP seed of a saved account. False when the index claims none. An account
  /// a command left unsettled is settled first even then (rules 2 and 5): an `otp set` killed
  /// before its claim left a seed nothing claims, and it is deleted here, not left behind.
  @discardableResult
  public func removeOTPSeed(of id: AccountID) throws -> Bool {
    try withSavedAccount(id) { account, book, index in
      guard account.otp || book.unsettled.contains(id) else { return false }
      // An unclaimed seed (a killed `otp set`) is deleted and not put back.
      try changeSecret(SecretKey(id, .otp), claimed: account.otp, to: nil, &book, &index) { $0.otp = false }
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
