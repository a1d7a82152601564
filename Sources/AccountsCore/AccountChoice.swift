import AccountsContract
import AccountsSystem

/// The account a command that takes `[USER]` uses, and which step of SPEC §3 chose it
/// (`accounts which --explain` says it; a command may word its messages by it).
public struct AccountChoice: Sendable, Equatable {
  /// The steps of SPEC §3, in the order they are tried: the first that names an account wins.
  public enum Source: String, Sendable, CaseIterable {
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

  /// The environment variable that names the account for one shell or script.
  public static let environmentVariable = "ACCOUNTS_ACCOUNT"

  public let id: AccountID
  public let source: Source
  /// The rule that decided, when `source` is `.rule`.
  public var rule: DirectoryRule? = nil

  public init(id: AccountID, source: Source, rule: DirectoryRule? = nil) {
    self.id = id
    self.source = source
    self.rule = rule
  }

  /// The decision of SPEC §3, without the process around it: each value is what the user gave
  /// (nil when not given), `rule` the directory rule that contains the current directory (asked
  /// only when the steps before it named nobody, so a broken config does not stop a named
  /// USER), `slot` the auto-login slot's holder, `isSaved` whether a rule's account is still
  /// saved, and `resolve` turns a name into a saved account (a prefix, `--backend`) or throws
  /// why it cannot. An empty `ACCOUNTS_ACCOUNT` counts as unset, as `ACCOUNTS_ACCOUNT= accounts
  /// ...` means.
  public static func pick(
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
  public struct NoneNamed: UserFacingError {
    public init() {}
    public var status: ExitStatus { .usage }
    public var message: String { "no account given and the auto-login slot is empty" }
    public var fix: String? {
      "give USER or --account USER, set \(AccountChoice.environmentVariable), add a rule with "
        + "`accounts rule add DIR USER`, or take the slot with `accounts switch USER`"
    }
  }

  /// The rule for this directory names an account that is no longer saved.
  public static func ruleAccountMissing(_ rule: DirectoryRule) -> CommandError {
    let directory = shellWord(rule.directory)
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
