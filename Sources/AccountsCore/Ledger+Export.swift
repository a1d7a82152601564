import AccountsContract
import AccountsSystem
import SecretMemory

extension Ledger {
  /// `export`: the remembered password of `account`, read as `accounts password` reads it; nil when
  /// none is remembered or the keyring lost it. A password `import` cannot read back (not
  /// UTF-8 text, or holding a NUL: stored by another program) is refused.
  public func exportedPassword(of account: Account, in book: AccountBook) throws -> SecretBytes? {
    guard account.remembered,
      let password = try claimedSecret(
        SecretKey(account.id, .password), recorded: book.secretService)
    else { return nil }
    guard password.isUTF8Text, !password.withUnsafeBytes({ $0.contains(0) }) else {
      throw CommandError(
        .failure, "the password of \(account.id) is not UTF-8 text without NUL bytes, so it cannot be exported",
        fix: "store it again with `accounts passwd \(book.shortestName(for: account.id))`")
    }
    return password
  }

  /// The TOTP seed of `account` as the keyring keeps it (an otpauth://totp/ URI); nil when
  /// none is kept.
  public func exportedSeed(of account: Account, in book: AccountBook) throws -> SecretBytes? {
    guard account.otp else { return nil }
    return try claimedOTPSeed(of: account.id, in: book)?.canonicalText
  }
}
