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
  /// `--tag TAG`, repeatable, checked as a tag; `help` says what it selects.
  static func tag(help: String) -> OptionSpec {
    OptionSpec("tag", value: "TAG", repeatable: true, completion: .tag, kind: .tag, help: help)
  }
  /// `--jobs N`: at most N at once, 1 to 64 (4 by default).
  static func jobs(help: String) -> OptionSpec {
    OptionSpec("jobs", short: "j", value: "N", kind: .number(1...64, example: "--jobs 8"), help: help)
  }
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
    try book.resolve(query, backend: invocation.backend, configuration: { try config.load() }, allowPrefix: allowPrefix)
  }

  /// The account a *new* name means (`Configuration.newAccountID`), on `--backend`.
  func newAccountID(_ query: String, _ invocation: Invocation) throws -> AccountID {
    try config.load().newAccountID(query, backend: invocation.backend)
  }
}
