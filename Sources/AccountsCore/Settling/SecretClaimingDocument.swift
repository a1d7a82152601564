import AccountsContract

/// A document that claims secrets kept in the keyring, by the rules of `Ledger`: the index
/// (accounts' passwords, tokens and TOTP seeds) and config.json (backends' secret settings).
/// The ledger begins, settles and recovers a change the same way for both.
protocol SecretClaimingDocument: Equatable {
  /// Who a secret belongs to: an account (`AccountID`), a backend (its name).
  associatedtype Holder: Equatable
  /// Holders whose keyring items may disagree with the document (rule 2); sorted.
  var unsettled: [Holder] { get }
  /// The program that keeps the secrets the document claims (rule 6).
  var secretService: String? { get set }
  /// Whether the document claims any secret: only then does the provider that keeps them matter.
  var claimsSecrets: Bool { get }
  /// The holders the document claims a secret of.
  var holdersClaimingSecrets: [Holder] { get }
  mutating func markUnsettled(_ holder: Holder)
  mutating func markSettled(_ holder: Holder)
  /// Rule 5 for `holder`: makes the document and `store` agree about its secrets without
  /// inventing any, then marks it settled.
  mutating func settle(_ holder: Holder, against store: SecretStore) throws
  /// The accounts whose cached token goes before `holder`'s secrets change (see `TokenCache`).
  static func accountsWithCachedToken(_ holder: Holder) -> [AccountID]
}

extension SecretClaimingDocument {
  /// Whether the document claims secrets that another provider than `current` keeps (rule 6).
  func claimsSecrets(keptByOtherThan current: String) -> Bool {
    guard let recorded = secretService, recorded != current else { return false }
    return claimsSecrets
  }
}
