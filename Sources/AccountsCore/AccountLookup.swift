import AccountsContract
import AccountsSystem

extension AccountBook {
  /// Finds the account a user means by `query`: `user@backend`, `user` when only one backend has
  /// that user, or a prefix of either that only one account has (SPEC §3). `backend` (from
  /// `--backend`) narrows the search to one backend. Without `allowPrefix` only whole names
  /// match (for commands that delete).
  public func resolve(
    _ query: String, backend: String? = nil, allowPrefix: Bool = true
  ) throws(AccountLookupError) -> AccountID {
    let candidates = backend.map { name in accounts.filter { $0.id.backend == name } } ?? accounts
    if let exact = candidates.first(where: { $0.id.description == query }) { return exact.id }
    let sameUser = candidates.filter { $0.id.user == query }
    if sameUser.count == 1 { return sameUser[0].id }
    if sameUser.count > 1 { throw .ambiguous(query, sameUser.map(\.id)) }
    let prefixed = candidates.filter {
      allowPrefix && ($0.id.user.hasPrefix(query) || $0.id.description.hasPrefix(query))
    }
    if prefixed.count == 1 { return prefixed[0].id }
    if prefixed.count > 1 { throw .ambiguous(query, prefixed.map(\.id)) }
    // Suggest accounts, not spellings: a typo close to "alice" suggests every alice by the
    // shortest name that picks it out.
    let spellings = Suggestions.closest(
      to: query, in: candidates.flatMap { [$0.id.user, $0.id.description] }, limit: 10)
    var suggestions: [String] = []
    for spelling in spellings {
      for account in candidates where account.id.user == spelling || account.id.description == spelling {
        let name = shortestName(for: account.id)
        if !suggestions.contains(name) { suggestions.append(name) }
      }
    }
    throw .unknown(query, backend: backend, suggestions: Array(suggestions.prefix(3)))
  }

  /// The shortest spelling that names the account unambiguously: `user` when no other backend
  /// has that user, else `user@backend`. Used by completion and suggestions.
  public func shortestName(for id: AccountID) -> String {
    accounts.firstIndex { $0.id == id }.map(shortestName(at:)) ?? id.description
  }

  /// `shortestName(for:)` of every account, in the book's order, in one pass (shell completion
  /// calls this on every TAB).
  public func shortestNames() -> [String] {
    accounts.indices.map(shortestName(at:))
  }

  /// Accounts are sorted by user, so a user saved on several backends has a neighbour with the
  /// same user: no search, no hashing.
  private func shortestName(at index: Int) -> String {
    let id = accounts[index].id
    let shared =
      (index > 0 && accounts[index - 1].id.user == id.user)
      || (index + 1 < accounts.count && accounts[index + 1].id.user == id.user)
    return shared ? id.description : id.user
  }
}

public enum AccountLookupError: UserFacingError, Equatable {
  case unknown(String, backend: String?, suggestions: [String])
  case ambiguous(String, [AccountID])

  public var status: ExitStatus {
    switch self {
    case .unknown: .loginRequired
    case .ambiguous: .usage
    }
  }

  public var message: String {
    switch self {
    case .unknown(let query, let backend, _):
      backend.map { "no account '\(query)' on backend '\($0)'" } ?? "no account '\(query)'"
    case .ambiguous(let query, let matches):
      "'\(query)' could be "
        + Suggestions.phrase(matches.prefix(5).map(\.description))
        + (matches.count > 5 ? " and \(matches.count - 5) more" : "")
    }
  }

  public var fix: String? {
    switch self {
    case .unknown(_, _, let suggestions) where !suggestions.isEmpty:
      "did you mean \(Suggestions.phrase(suggestions))?"
    case .unknown:
      "see saved accounts with `accounts list`, or save one with `accounts add USER`"
    case .ambiguous:
      "name it as USER@BACKEND"
    }
  }
}
