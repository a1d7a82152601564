import AccountsContract
import AccountsSystem
/// The rules of `Ledger`, written once for every document that claims secrets (the index for
/// accounts, config.json for backends): how a change begins, how it is carried out, and how a
/// failed one is recovered.
extension Ledger {
  /// Rule 6 before a change: the provider that answers now, or `providerChanged` when
  /// `document` claims secrets another keeps. The caller records the returned provider with its
  /// final write, once its keyring work succeeded.
  func checkProvider<Document: SecretClaimingDocument>(_ store: SecretStore, _ document: Document) throws -> String? {
    guard let current = try store.providerName() else { return nil }
    if let recorded = document.secretService, recorded != current, document.claimsSecrets {
      throw SecretStoreError.providerChanged(stored: recorded, current: current)
    }
    return current
  }

  /// Rules 6, 5 and 2 before `holder`'s secrets change: the provider checked, what earlier
  /// commands left unsettled settled, this change's intent on disk.
  func begin<Document: SecretClaimingDocument>(
    _ holder: Document.Holder, _ document: inout Document, _ locked: inout LockedDocument<Document>
  ) throws -> BegunChange<Document> {
    let store = try secrets()
    let provider = try checkProvider(store, document)
    try settleUnsettled(&document, store)
    let begun = BegunChange<Document>(
      holder: holder, store: store, unsettledBefore: document.unsettled.contains(holder), provider: provider)
    forgetCachedTokens(of: holder, in: Document.self)
    document.markUnsettled(holder)
    try locked.save(document)
    return begun
  }

  /// The write skeleton of every change that stores (or deletes before the claim goes), rules
  /// 1 to 4 with the document's lock held: `begin`; the keyring work, whose failure settles the
  /// holder at once when the keyring answered (`recover`) and is the error; the claim; the mark
  /// this change set cleared (unless more is to come) and the provider recorded; the final
  /// write, whose failure takes the keyring work back (`undo`) and is the error.
  @discardableResult
  func carryOut<Document: SecretClaimingDocument>(
    _ change: SecretChange<Document>, _ document: inout Document, _ locked: inout LockedDocument<Document>
  ) throws -> BegunChange<Document> {
    let begun = try begin(change.holder, &document, &locked)
    do {
      try change.keyring(begun.store)
    } catch {
      recover(change.holder, after: error, &document, &locked, begun.store)
      throw error
    }
    try change.claim(&document)
    if change.settledWhenSaved { begun.clearOwnMark(in: &document) }
    document.secretService = begun.provider ?? document.secretService
    do {
      try locked.save(document)
    } catch {
      change.undo(begun.store)
      throw error
    }
    return begun
  }

  /// Rule 3's second half, once the document no longer claims `keys` (saved): deletes them,
  /// then clears the mark the change set. Stops at the first failure and returns the keys left
  /// from there: the holder stays unsettled, and settling sweeps them.
  func deleteUnclaimed<Document: SecretClaimingDocument>(
    _ keys: [SecretKey], _ begun: BegunChange<Document>, _ document: inout Document,
    _ locked: inout LockedDocument<Document>
  ) -> [SecretKey] {
    for (position, key) in keys.enumerated() {
      do {
        try begun.store.delete(key)
      } catch {
        return Array(keys[position...])
      }
    }
    begun.clearOwnMark(in: &document)
    try? locked.save(document)  // the mark alone stays if this fails: settling finds nothing to do
    return []
  }

  /// Settles what earlier commands left unsettled, best effort: a keyring that fails stops it,
  /// and the command goes on with its own work, unless the keyring did not answer at all (a
  /// hung provider): then that is the command's error too, rather than a second wait.
  func settleUnsettled<Document: SecretClaimingDocument>(_ document: inout Document, _ store: SecretStore) throws {
    for holder in document.unsettled {
      do {
        try settle(holder, &document, store)
      } catch {
        if mayStillLand(error) { throw error }
        return
      }
    }
  }

  /// Makes the document and the keyring agree about `holder` (rule 5), then marks it settled.
  func settle<Document: SecretClaimingDocument>(
    _ holder: Document.Holder, _ document: inout Document, _ store: SecretStore
  ) throws {
    forgetCachedTokens(of: holder, in: Document.self)
    try document.settle(holder, against: store)
  }

  /// After a keyring change failed: settles `holder` at once if the keyring answered, and
  /// records the outcome. A call that timed out may still land, so the holder stays unsettled
  /// then, and the keyring is not asked again.
  func recover<Document: SecretClaimingDocument>(
    _ holder: Document.Holder, after error: Error, _ document: inout Document,
    _ locked: inout LockedDocument<Document>, _ store: SecretStore
  ) {
    if !mayStillLand(error) {
      var settled = document
      if (try? settle(holder, &settled, store)) != nil { document = settled }
    }
    try? locked.save(document)
  }

  private func forgetCachedTokens<Document: SecretClaimingDocument>(
    of holder: Document.Holder, in _: Document.Type
  ) {
    let accounts = Document.accountsWithCachedToken(holder)
    if !accounts.isEmpty { tokenCache?.forget(accounts) }
  }
}

/// One storing change of a holder's secrets, carried out by `Ledger.carryOut`.
struct SecretChange<Document: SecretClaimingDocument> {
  var holder: Document.Holder
  /// Stores (or deletes) in the keyring; throws at the first failure. What it stored before
  /// that is left to settling, unless it takes it back itself (a replaced secret).
  var keyring: (SecretStore) throws -> Void
  /// Records in the document what the keyring now holds.
  var claim: (inout Document) throws -> Void
  /// Rule 4: takes the keyring work back when the document could not record it.
  var undo: (SecretStore) -> Void
  /// False when the change goes on after its final write (deletions to come, see
  /// `deleteUnclaimed`): the mark stays until they are done.
  var settledWhenSaved: Bool

  init(
    of holder: Document.Holder, inKeyring keyring: @escaping (SecretStore) throws -> Void,
    claim: @escaping (inout Document) throws -> Void, undo: @escaping (SecretStore) -> Void = { _ in },
    settledWhenSaved: Bool = true
  ) {
    self.holder = holder
    self.keyring = keyring
    self.claim = claim
    self.undo = undo
    self.settledWhenSaved = settledWhenSaved
  }
}

/// A change whose intent is on disk (`Ledger.begin`): what the rest of it needs.
struct BegunChange<Document: SecretClaimingDocument> {
  let holder: Document.Holder
  let store: SecretStore
  /// An earlier command had left the holder unsettled: that mark is not this change's to clear.
  let unsettledBefore: Bool
  /// The provider to record with the final write, once the change succeeded.
  let provider: String?

  /// Clears the mark this change set; an earlier command's stays for settling.
  func clearOwnMark(in document: inout Document) {
    if !unsettledBefore { document.markSettled(holder) }
  }
}

/// A keyring call that timed out was cancelled on our side only: the provider may still carry
/// it out.
func mayStillLand(_ error: Error) -> Bool {
  switch error as? SecretStoreError {
  case .timedOut?, .stuck?: true
  default: false
  }
}
