import AccountsContract
import AccountsSystem
import SecretMemory
/// A short-lived copy of session tokens outside the Secret Service (the kernel keyring), read
/// without loading libsecret. The Secret Service stays the store of record; the ledger decides
/// which token may be served from here (`Ledger.claimedToken`), and the cache only keeps bytes.
///
/// An implementation answers nil whenever it cannot vouch for an entry: no entry, one kept
/// under another identity, a locked collection (or one whose state it cannot tell), or another
/// provider than the one the entry was read from.
public protocol TokenCache: AnyObject {
  /// The token kept for `id` under exactly `identity`, or nil (a miss); throws when the
  /// Secret Service did not answer at all (a hung keyring: the Secret Service would not either).
  func token(for id: AccountID, identity: String) throws -> SecretBytes?
  /// Keeps `token` for `id` under `identity` for at most `seconds`.
  func keep(_ token: SecretBytes, for id: AccountID, identity: String, seconds: Int)
  /// Drops what is kept for `ids`.
  func forget(_ ids: [AccountID])
}

/// When a token may be served from the cache, and for how long it may stay there.
public enum TokenCacheRule {
  /// The longest a token stays in the cache, in seconds.
  public static let maximumSeconds = 15 * 60

  /// The identity of the session `account` claims in `book` at `now`, the only one under which
  /// its token is kept and served: its generation, login time and expiry. Nil when the
  /// account's token must come from the Secret Service: no claim, an expired one, an account a
  /// command left unsettled (the keyring may hold another token than the index says), or a
  /// session from before generations (its identity cannot be told from the next one's).
  public static func identity(of account: Account, in book: AccountBook, at now: Timestamp) -> String? {
    guard let token = account.token, let generation = token.generation, !book.unsettled.contains(account.id),
      case .valid = account.tokenState(at: now)
    else { return nil }
    let login = account.lastLogin.map { String($0.secondsSince1970) } ?? "-"
    let expiry = token.expiresAt.map { String($0.secondsSince1970) } ?? "-"
    return "\(generation) \(login) \(expiry)"
  }

  /// How long the token of a session that ends at `expiresAt` may be kept from `now`: until
  /// then, and never longer than `maximumSeconds`; 0 when it may not be kept.
  public static func seconds(until expiresAt: Timestamp?, from now: Timestamp) -> Int {
    guard let expiresAt else { return maximumSeconds }
    return Int(max(0, min(Int64(maximumSeconds), expiresAt.secondsSince1970 - now.secondsSince1970)))
  }
}

extension Ledger {
  /// The token the index claims for `account` (as read in `book`): from the token cache when
  /// it holds this very session, else from the Secret Service (the recorded provider only,
  /// as `claimedSecret`), then kept in the cache for the next reader. Nil when the keyring has
  /// no such item.
  public func claimedToken(of account: Account, in book: AccountBook, at now: Timestamp) throws -> SecretBytes? {
    let identity = TokenCacheRule.identity(of: account, in: book, at: now)
    if let identity, let tokenCache, let token = try tokenCache.token(for: account.id, identity: identity) {
      return token
    }
    guard let token = try claimedSecret(SecretKey(account.id, .token), recorded: book.secretService) else { return nil }
    let seconds = TokenCacheRule.seconds(until: account.token?.expiresAt, from: now)
    if let identity, let tokenCache, seconds > 0 {
      tokenCache.keep(token, for: account.id, identity: identity, seconds: seconds)
    }
    return token
  }

  /// Drops the cached token of `id` before its secrets change: the cache never outlives the
  /// session it copied, even for a moment in which the index still names that session.
  func forgetCachedToken(_ id: AccountID) {
    tokenCache?.forget([id])
  }
}

extension Ledger {
  /// `accounts lock`: locks the collections accounts stores in and returns their labels
  /// (`SecretStore.lock`). The cached token of every account is dropped first (and again after,
  /// for one a reader kept meanwhile).
  public func lockCollection() throws -> String {
    let ids = (try? index.load().accounts.map(\.id)) ?? []
    tokenCache?.forget(ids)
    defer { tokenCache?.forget(ids) }
    return try secrets().lock()
  }
}
