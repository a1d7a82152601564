import AccountsContract
import AccountsJSON

/// A saved account as the index records it. Secrets are not here: the remembered password and
/// the token live in the Secret Service; the index only knows whether they exist, and the
/// token's expiry, so that `list` needs no secret.
public struct Account: Sendable, Equatable {
  public var id: AccountID
  /// Items (2) and (3) of SPEC §4: the user asked to remember the password, and it is stored.
  public var remembered: Bool
  /// Item (5): a token is stored; nil when there is none.
  public var token: TokenRecord?
  /// A TOTP seed is stored (kind `otp`): `accounts otp` prints its codes.
  public var otp: Bool
  public var lastLogin: Timestamp?
  public var addedAt: Timestamp
  /// Non-secret values the adapter returned at login (e.g. `userId`) and wants back later.
  public var session: [String: String]
  /// Labels for test runs (`accounts tag`), sorted bytewise, each once (see `Tags`).
  public internal(set) var tags: [String]
  /// Members of the account's object in the index that this version does not know (written by
  /// a newer one, or by hand), kept as they were.
  public var unknownFields: JSONObject

  public init(
    id: AccountID, remembered: Bool = false, token: TokenRecord? = nil,
    lastLogin: Timestamp? = nil, addedAt: Timestamp, session: [String: String] = [:],
    tags: [String] = [], otp: Bool = false, unknownFields: JSONObject = [:]
  ) {
    self.id = id
    self.otp = otp
    self.remembered = remembered
    self.token = token
    self.lastLogin = lastLogin
    self.addedAt = addedAt
    self.session = session
    self.tags = Tags.normalised(tags)
    self.unknownFields = unknownFields
  }

  /// Whether a session of the account can be renewed without a person: a remembered password,
  /// or a refresh token.
  public var renewable: Bool { remembered || token?.refreshable == true }

  /// Whether the index says the keyring holds a secret of this account.
  public var claimsSecrets: Bool { remembered || token != nil || otp }

  /// What `list` shows about the token at `now`.
  public func tokenState(at now: Timestamp) -> TokenState {
    guard let token else { return .none }
    guard let expiresAt = token.expiresAt else { return .valid(until: nil) }
    return expiresAt > now ? .valid(until: expiresAt) : .expired(at: expiresAt)
  }
}

/// The index's record of a stored token.
public struct TokenRecord: Sendable, Equatable {
  /// Nil when the backend gave no lifetime: the token is trusted until the backend says otherwise.
  public var expiresAt: Timestamp?
  /// A random name for this login's session, new at every login: a verdict on one session is
  /// told from one on the session that replaced it, even within the same second. Nil in
  /// indexes written before it existed.
  public var generation: String?
  /// A refresh token is stored beside the token (kind `refresh_token`): the session is renewed
  /// with it, without the password, when the token expires.
  public var refreshable: Bool
  /// Members of the token's object that this version does not know, kept as they were.
  public var unknownFields: JSONObject

  public init(expiresAt: Timestamp?, generation: String? = nil, refreshable: Bool = false, unknownFields: JSONObject = [:]) {
    self.expiresAt = expiresAt
    self.generation = generation
    self.refreshable = refreshable
    self.unknownFields = unknownFields
  }
}

public enum TokenState: Sendable, Equatable {
  case none
  case valid(until: Timestamp?)
  case expired(at: Timestamp)
}
