import AccountsContract
import AccountsCore
import AccountsSystem

/// The account a command that takes `[USER]` uses, and which step of SPEC §3 chose it
/// (`accounts which --explain` says it; a command may word its messages by it).
package struct AccountChoice: Sendable, Equatable {
  /// The steps of SPEC §3, in the order they are tried: the first that names an account wins.
  enum Source: String, Sendable, CaseIterable {
    /// USER on the command line.
    case argument
    /// `--account USER`.
    case option
    /// `ACCOUNTS_ACCOUNT`.
    case environment
    /// The longest directory rule that contains the physical current directory.
    case rule
    /// The auto-login slot.
    case slot
  }

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

  /// The environment variable that names the account for one shell or script.
  static let environmentVariable = "ACCOUNTS_ACCOUNT"

  let id: AccountID
  let source: Source
  /// The rule that decided, when `source` is `.rule`.
  var rule: DirectoryRule? = nil

  /// The decision of SPEC §3, without the process around it: each value is what the user gave
  /// (nil when not given), `rule` the directory rule that contains the current directory (asked
  /// only when the steps before it named nobody, so a broken config does not stop a named
  /// USER), `slot` the auto-login slot's holder, `isSaved` whether a rule's account is still
  /// saved, and `resolve` turns a name into a saved account (a prefix, `--backend`) or throws
  /// why it cannot. An empty `ACCOUNTS_ACCOUNT` counts as unset, as `ACCOUNTS_ACCOUNT= accounts
  /// ...` means.
  static func pick(
    argument: String?, option: String?, environment: String?,
    rule: () throws -> DirectoryRule? = { nil }, slot: AccountID?,
    isSaved: (AccountID) -> Bool = { _ in true },
    resolve: (String) throws -> AccountID
  ) throws -> AccountChoice {
    if let argument {
      let id = try resolve(argument)
      // `token bob --account bob@corp` names one account twice; only a contradiction is refused.
      if let option, option != argument, try resolve(option) != id {
        throw CommandError.usage(
          "USER '\(argument)' and --account '\(option)' name different accounts",
          fix: "give the account once")
      }
      return AccountChoice(id: id, source: .argument)
    }
    if let option {
      return AccountChoice(id: try resolve(option), source: .option)
    }
    if let environment, !environment.isEmpty {
      do {
        return AccountChoice(id: try resolve(environment), source: .environment)
      } catch let error as AccountLookupError {
        throw environmentError(error)
      }
    }
    if let rule = try rule() {
      // A rule names its account whole. When that account was removed, falling through to the
      // slot would quietly act as another account in a directory meant for this one.
      guard isSaved(rule.account) else { throw ruleAccountMissing(rule) }
      return AccountChoice(id: rule.account, source: .rule, rule: rule)
    }
    if let slot {
      return AccountChoice(id: slot, source: .slot)
    }
    throw NoneNamed()
  }

  /// Nothing named an account: the one case where login, logout and exec open the picker.
  struct NoneNamed: UserFacingError {
    var status: ExitStatus { .usage }
    var message: String { "no account given and the auto-login slot is empty" }
    var fix: String? {
      "give USER or --account USER, set \(AccountChoice.environmentVariable), add a rule with "
        + "`accounts rule add DIR USER`, or take the slot with `accounts switch USER`"
    }
  }

  /// The rule for this directory names an account that is no longer saved.
  static func ruleAccountMissing(_ rule: DirectoryRule) -> CommandError {
    let directory = shellQuotedIfNeeded(rule.directory)
    return CommandError(
      .loginRequired,
      "the rule for \(directory) names \(rule.account), which is no longer saved",
      fix: "save it again with `accounts add \(rule.account)`, point the rule elsewhere with "
        + "`accounts rule add \(directory) USER`, or `accounts rule remove \(directory)`")
  }

  /// A lookup error that says the name came from the environment: a user who typed no name
  /// would otherwise not know where "no account 'carl'" comes from.
  private static func environmentError(_ error: AccountLookupError) -> CommandError {
    var fix = error.fix
    if case .unknown(_, _, let suggestions) = error, suggestions.isEmpty {
      fix = "set \(environmentVariable) to a saved account (see `accounts list`) or unset it"
    }
    return CommandError(error.status, "\(environmentVariable): \(error.message)", fix: fix)
  }
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
