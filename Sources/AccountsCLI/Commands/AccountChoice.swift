import AccountsContract
import AccountsCore
import AccountsSystem

extension AccountChoice {
  /// `pick`'s order in words, for the help of the commands that take [USER] and the man
  /// page's SESSIONS section: the one text, as there is one resolver.
  package static let orderText =
    "USER; --account USER; ACCOUNTS_ACCOUNT; the directory rule (`accounts rule add DIR USER`) of the "
    + "longest directory that contains the current one; the account in the auto-login slot"

  /// What happens when `pick` finds nobody, for the same texts.
  package static let pickerText =
    "When none of them names an account, login, logout and exec let you choose one with the picker of "
    + "`accounts switch` on a terminal; otherwise the command exits 2. `accounts which --explain` says "
    + "which step chose the account."
}

extension Environment {
  /// The account a command made with `CommandSpec(picksAccount: true)` uses: its USER, else
  /// `--account`, else `ACCOUNTS_ACCOUNT`, else the longest directory rule containing the
  /// current directory, else the auto-login slot (SPEC §3). Names are resolved as
  /// `resolveAccount` does: a unique prefix is enough, `--backend` narrows.
  func pickAccount(_ invocation: Invocation, in book: AccountBook) throws -> AccountChoice {
    try AccountChoice.pick(
      argument: invocation.argument(SharedArguments.optionalAccount),
      option: invocation.value(SharedArguments.accountOption),
      environment: variables[AccountChoice.environmentVariable],
      rule: { try ruleForCurrentDirectory() },
      slot: book.autoLogin,
      isSaved: { book[$0] != nil },
      resolve: { try resolveAccount($0, invocation, in: book) })
  }

  /// The rule that contains the physical current directory, read from the user's own
  /// config.json; nil when none does or the current directory cannot be named.
  func ruleForCurrentDirectory() throws -> DirectoryRule? {
    try directoryRule().rule
  }

  /// `ruleForCurrentDirectory`, and the path the working directory had when it was deleted
  /// (then the rule is the one for that path). A deleted directory is still where the user
  /// works (a build directory `git clean` removed): its rule applies, by the path the kernel
  /// recorded for it. When that path cannot be told, no rule can decide, and quietly using the
  /// slot's account in a directory meant for another would be wrong: that is an error.
  func directoryRule() throws -> (rule: DirectoryRule?, deleted: String?) {
    let rules = try config.load().rules
    guard !rules.isEmpty else { return (nil, nil) }
    let directory = currentDirectory()
    if case .deleted(nil) = directory {
      throw CommandError(
        .failure, "the current directory was deleted and where it was cannot be told, so no directory rule can decide",
        fix: "cd to an existing directory, or name the account "
          + "(USER, --account or \(AccountChoice.environmentVariable))")
    }
    guard let path = directory.rulePath else { return (nil, nil) }
    let deleted: String? = if case .deleted = directory { path } else { nil }
    return (DirectoryRule.deciding(rules, for: path), deleted)
  }

  /// `pickAccount`, except that where nothing names an account (no USER, --account,
  /// ACCOUNTS_ACCOUNT or slot holder) the user picks one on a terminal, with `prompt`.
  func pickAccountOrChoose(_ invocation: Invocation, in book: AccountBook, prompt: String) throws -> AccountID {
    do {
      return try pickAccount(invocation, in: book).id
    } catch let error as AccountChoice.NoneNamed {
      guard terminal.canPrompt, !book.accounts.isEmpty else { throw error }
      return try chooseAccount(in: book, prompt: prompt)
    }
  }

  /// The account chosen with the picker on the terminal, as if its name had been typed.
  func chooseAccount(in book: AccountBook, prompt: String) throws -> AccountID {
    guard !book.accounts.isEmpty else {
      throw CommandError(.loginRequired, "no saved accounts to choose from", fix: "add one: `accounts add USER`")
    }
    let (header, rows, accounts) = AccountPresentation.pickerRows(book, now: now())
    return accounts[try terminal.pick(rows, header: header, prompt: prompt)]
  }
}
