import AccountsCore

/// The account a command that takes `[USER]` uses, and which step of SPEC §3 chose it
/// (`accounts which --explain` says it; a command may word its messages by it).
struct AccountChoice: Sendable, Equatable {
  /// The steps of SPEC §3, in the order they are tried: the first that names an account wins.
  enum Source: String, Sendable, CaseIterable {
    /// USER on the command line.
    case argument
    /// `--account USER`.
    case option
    /// `ACCOUNTS_ACCOUNT`.
    case environment
    /// The auto-login slot.
    case slot
  }

  /// The environment variable that names the account for one shell or script.
  static let environmentVariable = "ACCOUNTS_ACCOUNT"

  let id: AccountID
  let source: Source

  /// The decision of SPEC §3, without the process around it: each value is what the user gave
  /// (nil when not given), `slot` the auto-login slot's holder, and `resolve` turns a name into
  /// a saved account (a prefix, `--backend`) or throws why it cannot. An empty
  /// `ACCOUNTS_ACCOUNT` counts as unset, as `ACCOUNTS_ACCOUNT= accounts ...` means.
  static func pick(
    argument: String?, option: String?, environment: String?, slot: AccountID?,
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
    // SPEC §3's directory rules come here, before the slot, when they exist.
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
      "give USER or --account USER, set \(AccountChoice.environmentVariable), "
        + "or take the slot with `accounts switch USER`"
    }
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
  /// `--account`, else `ACCOUNTS_ACCOUNT`, else the auto-login slot (SPEC §3). Names are
  /// resolved as `resolveAccount` does: a unique prefix is enough, `--backend` narrows.
  func pickAccount(_ invocation: Invocation, in book: AccountBook) throws -> AccountChoice {
    try AccountChoice.pick(
      argument: invocation.argument(SharedArguments.optionalAccount),
      option: invocation.value(SharedArguments.accountOption),
      environment: variables[AccountChoice.environmentVariable],
      slot: book.autoLogin,
      resolve: { try resolveAccount($0, invocation, in: book) })
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
