import AccountsContract
import AccountsCore
import AccountsSystem

/// Arguments and options that several commands share, written once so that their spelling,
/// help and completion cannot drift apart.
enum SharedArguments {
  /// A saved account, as commands that act on one take it.
  static let account = ArgumentSpec(
    "USER", completion: .account, help: "the account: USER, USER@BACKEND or a unique prefix")
  /// The `[USER]` of a command that picks its account (`CommandSpec(picksAccount: true)`).
  static let optionalAccount = ArgumentSpec(
    "USER", completion: .account, optional: true,
    help: "the account: USER, USER@BACKEND or a unique prefix; else --account, "
      + "ACCOUNTS_ACCOUNT or the auto-login slot")
  /// `--account USER`: the same as `[USER]`, for scripts and aliases that put options first.
  static let accountOption = OptionSpec(
    "account", value: "USER", completion: .account,
    help: "the account to use, as the USER argument would name it")
  /// `--password-stdin`: the only way besides the no-echo prompt to give a password.
  static let passwordStdin = OptionSpec(
    "password-stdin", help: "read the password from stdin (its first line) instead of asking")
}

/// How commands turn the USER a user typed into an account (SPEC §3).
extension Environment {
  /// The saved account `query` names, honouring `--backend`.
  func resolveAccount(
    _ query: String, _ invocation: Invocation, in book: AccountBook, allowPrefix: Bool = true
  ) throws -> AccountID {
    if let backend = invocation.backend, !book.accounts.contains(where: { $0.id.backend == backend }) {
      _ = try config.load().backend(named: backend)  // "no backend 'crop'; did you mean 'corp'?"
    }
    return try book.resolve(query, backend: invocation.backend, allowPrefix: allowPrefix)
  }

  /// The account a *new* name means: `user@backend` when the part after the last `@` is a
  /// configured backend; else the whole name is the user (e-mail addresses contain `@`) on
  /// `--backend` or the only backend. A suffix without a dot that is no backend is taken for
  /// a mistyped backend rather than silently becoming part of the user name.
  func newAccountID(_ query: String, _ invocation: Invocation) throws -> AccountID {
    let configuration = try config.load()
    var user = query
    var requested = invocation.backend
    if let at = query.lastIndex(of: "@"), at != query.startIndex {
      let suffix = String(query[query.index(after: at)...])
      if configuration[suffix] != nil || !suffix.contains(".") {
        if let requested, requested != suffix {
          throw CommandError.usage(
            "'\(query)' names backend '\(suffix)' but --backend says '\(requested)'",
            fix: "give the backend once")
        }
        _ = try configuration.backend(named: suffix)
        user = String(query[..<at])
        requested = suffix
      }
    }
    return try newAccountID(user: user, requested: requested, in: configuration)
  }

  /// The account a new `user` on `requested` (else the only backend) is: the rule every
  /// command that saves an account follows, for `add` and each row of `import`.
  func newAccountID(user: String, requested: String?, in configuration: Configuration) throws -> AccountID {
    try Names.checkUser(user)
    let backend = try configuration.backendForNewAccount(requested: requested)
    return AccountID(user: user, backend: backend.name)
  }
}
