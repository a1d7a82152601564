import AccountsContract
import AccountsJSON
import AccountsSystem

/// The index's content: every saved account and the single auto-login slot.
///
/// The slot is one optional field, so two holders cannot exist by construction, and every
/// mutation that removes an account also empties the slot it held.
public struct AccountBook: Sendable, Equatable {
  /// Sorted by user, then backend.
  public private(set) var accounts: [Account]
  /// Item (4) of SPEC §4: the account that starts logged in.
  public private(set) var autoLogin: AccountID?
  /// The holder before the current one, for `switch -`.
  public private(set) var previousAutoLogin: AccountID?
  /// Accounts whose keyring items may disagree with what the index says of them: a command that
  /// changes both was interrupted between the two, or its keyring call timed out and may still
  /// land. The ledger settles them (see `Ledger`); sorted, no duplicates.
  public private(set) var unsettled: [AccountID]
  /// The program that keeps the secrets the index claims ("keepassxc",
  /// "gnome-keyring-daemon"), recorded when a change there succeeded: another provider answering
  /// later (gnome-keyring started by D-Bus while KeePassXC is not running) is not taken for one
  /// whose secrets are gone.
  public var secretService: String?

  /// Whether the index claims any secret (a remembered password, a token, a TOTP seed): only
  /// then does the provider that keeps them matter (an empty book moves to another one on its own).
  public var claimsSecrets: Bool { accounts.contains { $0.claimsSecrets } }
  /// Top-level members of the index that this version does not know, kept as they were.
  public var unknownFields: JSONObject

  public init() {
    accounts = []
    unsettled = []
    unknownFields = [:]
  }

  /// Builds a book from decoded parts; throws when they contradict each other.
  public init(
    accounts: [Account], autoLogin: AccountID?, previousAutoLogin: AccountID?,
    unsettled: [AccountID] = [], secretService: String? = nil, unknownFields: JSONObject = [:]
  ) throws(AccountBookError) {
    self.unsettled = Array(Set(unsettled)).sorted()
    self.secretService = secretService
    self.unknownFields = unknownFields
    self.accounts = accounts.sorted { $0.id < $1.id }
    for (earlier, later) in zip(self.accounts, self.accounts.dropFirst()) where earlier.id == later.id {
      throw .duplicate(later.id)
    }
    if let autoLogin, !self.accounts.contains(where: { $0.id == autoLogin }) {
      throw .slotHolderMissing(autoLogin)
    }
    self.autoLogin = autoLogin
    // A vanished previous holder only disables `switch -`; it is not worth an error.
    self.previousAutoLogin = previousAutoLogin.flatMap { id in
      self.accounts.contains { $0.id == id } ? id : nil
    }
  }

  public var isEmpty: Bool { accounts.isEmpty }

  public subscript(id: AccountID) -> Account? {
    position(of: id).map { accounts[$0] }
  }

  /// Saves a new account.
  public mutating func add(_ account: Account) throws(AccountBookError) {
    let index = insertionIndex(for: account.id)
    if index < accounts.count, accounts[index].id == account.id { throw .alreadySaved(account.id) }
    accounts.insert(account, at: index)
  }

  /// Forgets an account; empties the slot if it held it. Returns what was removed.
  @discardableResult
  public mutating func remove(_ id: AccountID) -> Account? {
    guard let index = position(of: id) else { return nil }
    if autoLogin == id { autoLogin = nil }
    if previousAutoLogin == id { previousAutoLogin = nil }
    return accounts.remove(at: index)
  }

  /// Changes one account in place. Returns false when there is no such account.
  @discardableResult
  public mutating func update(_ id: AccountID, _ change: (inout Account) -> Void) -> Bool {
    guard let index = position(of: id) else { return false }
    change(&accounts[index])
    precondition(accounts[index].id == id, "an update must not rename the account")
    return true
  }

  /// Applies the index side of a SPEC §4 transition to `id`. A login saves the account if it is
  /// new (item 1), recording `login`'s expiry and session values. Internal: only the ledger
  /// applies a transition, with the keyring side in its order (`Ledger.record`).
  mutating func apply(
    _ transition: Transition, to id: AccountID, login: LoginRecord? = nil, at now: Timestamp
  ) {
    if transition.storeToken, position(of: id) == nil {
      try? add(Account(id: id, addedAt: now))  // cannot throw: just checked it is absent
    }
    update(id) { account in
      if transition.deletePassword { account.remembered = false }
      if transition.storePassword { account.remembered = true }
      if transition.deleteToken {
        account.token = nil
        account.session = [:]
      }
      if transition.storeToken {
        let refreshable = login?.refreshable == true || transition.keepsRefreshToken && account.token?.refreshable == true
        account.token = TokenRecord(expiresAt: login?.expiresAt, generation: login?.generation, refreshable: refreshable)
        account.session = login?.session ?? [:]
        account.lastLogin = now
      }
    }
    switch transition.slot {
    case .keep:
      break
    case .take:
      guard position(of: id) != nil, autoLogin != id else { break }
      if let holder = autoLogin { previousAutoLogin = holder }
      autoLogin = id
    case .release:
      if autoLogin == id { autoLogin = nil }
    }
  }

  /// Empties the book (`accounts clear`).
  public mutating func removeAll() {
    accounts.removeAll()
    autoLogin = nil
    previousAutoLogin = nil
  }

  /// Records that `id`'s keyring items may no longer match what the book says of them.
  public mutating func markUnsettled(_ id: AccountID) {
    let index = unsettled.firstIndex { !($0 < id) } ?? unsettled.endIndex
    if index == unsettled.endIndex || unsettled[index] != id { unsettled.insert(id, at: index) }
  }

  /// Records that `id`'s keyring items match the book again.
  public mutating func markSettled(_ id: AccountID) {
    unsettled.removeAll { $0 == id }
  }

  private func position(of id: AccountID) -> Int? {
    let index = insertionIndex(for: id)
    return index < accounts.count && accounts[index].id == id ? index : nil
  }

  /// Binary search: the book may hold thousands of accounts.
  private func insertionIndex(for id: AccountID) -> Int {
    var low = 0
    var high = accounts.count
    while low < high {
      let middle = (low + high) / 2
      if accounts[middle].id < id { low = middle + 1 } else { high = middle }
    }
    return low
  }
}

/// What a successful login leaves in the index.
public struct LoginRecord: Sendable, Equatable {
  public var expiresAt: Timestamp?
  public var session: [String: String]
  /// The new session's name (`TokenRecord.generation`).
  public var generation: String?
  /// The login (or renewal) stored a new refresh token.
  public var refreshable: Bool

  public init(expiresAt: Timestamp?, session: [String: String] = [:], generation: String? = nil, refreshable: Bool = false) {
    self.expiresAt = expiresAt
    self.session = session
    self.generation = generation
    self.refreshable = refreshable
  }
}

public enum AccountBookError: UserFacingError, Equatable {
  case alreadySaved(AccountID)
  case duplicate(AccountID)
  case slotHolderMissing(AccountID)

  public var status: ExitStatus { .failure }

  public var message: String {
    switch self {
    case .alreadySaved(let id): "\(id) is already saved"
    case .duplicate(let id): "\(id) appears twice in the index"
    case .slotHolderMissing(let id): "the auto-login slot names \(id), which is not saved"
    }
  }

  public var fix: String? {
    switch self {
    case .alreadySaved(let id): "change its password with `accounts passwd \(id)`"
    case .duplicate, .slotHolderMissing: nil
    }
  }
}
