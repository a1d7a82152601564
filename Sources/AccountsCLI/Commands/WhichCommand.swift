import AccountsContract
import AccountsCore
import AccountsJSON

/// `accounts which [--explain]`: the account a command here would use, and why (SPEC §3).
enum WhichCommand {
  static let spec = CommandSpec(
    "which",
    summary: "show the account a command here would use, and why",
    discussion: """
      Prints the account that a command taking [USER] would use in the current directory \
      when given no USER: --account, else ACCOUNTS_ACCOUNT, else the longest directory rule \
      containing the physical current directory, else the auto-login slot. With --explain it \
      also says which step decided and what the others hold, e.g. \
      "alice@corp  (rule ~/work/corp; ACCOUNTS_ACCOUNT unset; the auto-login slot holds \
      bob@gh)". Reads only the index and config.json. Exits 2 when no step names an account, \
      and 3 when the deciding rule names an account that is no longer saved.

      A current directory that was deleted (a build directory `git clean` removed) keeps its \
      rule: the rules are matched with the path it had (the kernel's record, else PWD), and \
      --explain says "for the deleted directory ...". When that path cannot be told and rules \
      exist, commands that would ask the rules fail (exit 1) rather than use the slot.

      With --json: an object with the keys account, source ("option", "environment", "rule" \
      or "slot"), rule (the directory of the rule containing the current directory, or \
      null), rule_account, environment (ACCOUNTS_ACCOUNT or null) and slot (its holder or \
      null).
      """,
    options: [explain, SharedArguments.accountOption],
    examples: [
      ("accounts which --explain", "which account, and which step chose it"),
      ("cd ~/work/corp && accounts which", "the account the rule for ~/work/corp gives"),
    ],
    handler: run)

  static let explain = OptionSpec(
    "explain", help: "say which step decided and what the other steps hold")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let book = try environment.index.load()
    let option = invocation.value(SharedArguments.accountOption)
    let variable = environment.variables[AccountChoice.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    let (rule, deleted) = try environment.directoryRule()
    let choice = try AccountChoice.pick(
      argument: nil, option: option, environment: variable, rule: { rule }, slot: book.autoLogin,
      isSaved: { book[$0] != nil },
      resolve: { try environment.resolveAccount($0, invocation, in: book) })
    if invocation.json {
      environment.output.writeJSON(.object([
        "account": .string(choice.id.description),
        "source": .string(choice.source.rawValue),
        "rule": rule.map { .string($0.directory) } ?? .null,
        "rule_account": rule.map { .string($0.account.description) } ?? .null,
        "environment": variable.map { .string($0) } ?? .null,
        "slot": book.autoLogin.map { .string($0.description) } ?? .null,
      ]))
    } else if invocation.isSet(explain) {
      let home = RulePaths.home(environment)
      let parts = steps(
        choice, option: option, variable: variable, rule: rule, deleted: deleted, slot: book.autoLogin, home: home)
      environment.output.writeText("\(choice.id)  (\(parts.joined(separator: "; ")))\n")
    } else {
      environment.output.writeText("\(choice.id)\n")
    }
  }

  /// The deciding step first, then the state of each later step that did not decide.
  /// `deleted`: the path the deleted working directory had, which the rules were matched with.
  static func steps(
    _ choice: AccountChoice, option: String?, variable: String?, rule: DirectoryRule?, deleted: String? = nil,
    slot: AccountID?, home: String?
  ) -> [String] {
    let directory = deleted.map { "the deleted directory \(RulePaths.display($0, home: home))" }
    let forDirectory = directory.map { " for \($0)" } ?? ""
    let variableName = AccountChoice.environmentVariable
    var parts: [String] = []
    switch choice.source {
    case .argument: parts.append("USER")
    case .option: parts.append("--account \(option ?? "")")
    case .environment: parts.append("\(variableName)=\(variable ?? "")")
    case .rule:
      let directory = RulePaths.display(choice.rule?.directory ?? "", home: home)
      parts.append("rule \(directory)" + (forDirectory.isEmpty ? "" : "," + forDirectory))
    case .slot: parts.append("the auto-login slot")
    }
    if choice.source != .environment {
      parts.append(variable.map { "\(variableName)=\($0)" } ?? "\(variableName) unset")
    }
    if choice.source != .rule {
      parts.append(
        rule.map { "rule \(RulePaths.display($0.directory, home: home)) gives \($0.account)\(forDirectory)" }
          ?? "no rule for \(directory ?? "this directory")")
    }
    if choice.source != .slot {
      parts.append(slot.map { "the auto-login slot holds \($0)" } ?? "the auto-login slot is empty")
    }
    return parts
  }
}
