import AccountsContract
import AccountsSystem

/// How a new account is named: the rule every command that saves an account follows (`add`,
/// `login` of a new name, each row of `import`).
extension Configuration {
  /// The account a *new* name means: `user@backend` when the part after the last `@` is a
  /// configured backend; else the whole name is the user (e-mail addresses contain `@`) on
  /// `backend` or the only backend. A suffix without a dot that is no backend is taken for a
  /// mistyped backend rather than silently becoming part of the user name.
  public func newAccountID(_ query: String, backend requested: String?) throws -> AccountID {
    var user = query
    var requested = requested
    if let at = query.lastIndex(of: "@"), at != query.startIndex {
      let suffix = String(query[query.index(after: at)...])
      if self[suffix] != nil || !suffix.contains(".") {
        if let requested, requested != suffix {
          throw CommandError.usage(
            "'\(query)' names backend '\(suffix)' but --backend says '\(requested)'",
            fix: "give the backend once")
        }
        _ = try backend(named: suffix)
        user = String(query[..<at])
        requested = suffix
      }
    }
    return try newAccountID(user: user, requested: requested)
  }

  /// The account a new `user` on `requested` (else the only backend) is.
  public func newAccountID(user: String, requested: String?) throws -> AccountID {
    try Names.checkUser(user)
    return AccountID(user: user, backend: try backendForNewAccount(requested: requested).name)
  }
}
