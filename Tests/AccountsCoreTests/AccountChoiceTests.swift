@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

/// Which account a command acts on (SPEC §3): USER, --account, ACCOUNTS_ACCOUNT, a directory
/// rule, the auto-login slot, the first that names one deciding.
@Suite struct AccountChoiceTests {
  let alice = AccountID(user: "alice", backend: "corp")
  let bob = AccountID(user: "bob", backend: "corp")
  let carolCorp = AccountID(user: "carol", backend: "corp")
  let carolTest = AccountID(user: "carol", backend: "test")
  /// alice@corp (in the slot), bob@corp, carol@corp and carol@test.
  let book: AccountBook

  init() throws {
    book = try .named(["alice@corp", "bob@corp", "carol@corp", "carol@test"], autoLogin: AccountID(user: "alice", backend: "corp"))
  }

  func pick(
    argument: String? = nil, option: String? = nil, environment: String? = nil,
    rule: DirectoryRule? = nil, slot: AccountID? = nil
  ) throws -> AccountChoice {
    try AccountChoice.pick(
      argument: argument, option: option, environment: environment, rule: { rule }, slot: slot,
      isSaved: { book[$0] != nil }, resolve: { try book.resolve($0) })
  }

  func failure(_ body: () throws -> AccountChoice) -> UserFacingError? {
    do {
      _ = try body()
      return nil
    } catch {
      return error as? UserFacingError
    }
  }

  @Test func theStepsAreTriedInSPECsOrder() {
    #expect(AccountChoice.Source.allCases == [.argument, .option, .environment, .rule, .slot])
  }

  @Test func aRuleWinsOverTheSlotAndLosesToEverythingBeforeIt() throws {
    let rule = DirectoryRule(directory: "/work/corp", account: bob)
    #expect(try pick(rule: rule, slot: alice) == AccountChoice(id: bob, source: .rule, rule: rule))
    #expect(try pick(rule: rule) .source == .rule, "no slot needed")
    #expect(try pick(environment: "carol@test", rule: rule, slot: alice).source == .environment)
    #expect(try pick(option: "alice", rule: rule).source == .option)
    #expect(try pick(argument: "alice", rule: rule).source == .argument)
  }

  @Test func theRuleIsNotReadWhenAnEarlierStepDecides() throws {
    var asked = 0
    let choice = try AccountChoice.pick(
      argument: nil, option: nil, environment: "bob", rule: { asked += 1; throw CommandError.usage("broken config") },
      slot: alice, resolve: { try book.resolve($0) })
    #expect(choice.id == bob)
    #expect(asked == 0, "a broken config must not stop ACCOUNTS_ACCOUNT, --account or USER")
  }

  @Test func aRuleNamingARemovedAccountFailsInsteadOfFallingToTheSlot() {
    let gone = AccountID(user: "dave", backend: "corp")
    let error = failure { try pick(rule: DirectoryRule(directory: "/work/corp", account: gone), slot: alice) }
    #expect(error?.status == .loginRequired)
    #expect(error?.message == "the rule for /work/corp names dave@corp, which is no longer saved")
    #expect(error?.fix?.contains("accounts rule remove /work/corp") == true, "\(error?.fix ?? "")")
  }

  @Test func theArgumentWinsOverEverythingAfterIt() throws {
    let choice = try pick(argument: "bob", option: "bo", environment: "carol@test", slot: alice)
    #expect(choice == AccountChoice(id: bob, source: .argument))
    // Later steps are not even looked at: a wrong ACCOUNTS_ACCOUNT does not stop a named USER.
    #expect(try pick(argument: "bob", environment: "nobody").source == .argument)
  }

  @Test func theOptionWinsOverTheEnvironmentAndTheSlot() throws {
    #expect(
      try pick(option: "bob", environment: "carol@test", slot: alice)
        == AccountChoice(id: bob, source: .option))
  }

  @Test func theEnvironmentWinsOverTheSlot() throws {
    #expect(
      try pick(environment: "carol@test", slot: alice)
        == AccountChoice(id: carolTest, source: .environment))
    #expect(try pick(environment: "bo", slot: alice).id == bob, "a unique prefix is enough")
    #expect(try pick(environment: "", slot: alice).source == .slot, "empty means unset")
  }

  @Test func theSlotIsTheLastStep() throws {
    #expect(try pick(slot: alice) == AccountChoice(id: alice, source: .slot))
  }

  @Test func nothingNamingAnAccountIsAUsageError() {
    let error = failure { try pick() }
    #expect(error?.status == .usage)
    #expect(error?.message == "no account given and the auto-login slot is empty")
    #expect(
      error?.fix
        == "give USER or --account USER, set ACCOUNTS_ACCOUNT, add a rule with `accounts rule add DIR USER`, "
        + "or take the slot with `accounts switch USER`"
    )
  }

  @Test func theArgumentAndTheOptionMayNameOneAccountButNotTwo() throws {
    #expect(try pick(argument: "bob", option: "bob").id == bob)
    #expect(try pick(argument: "bob", option: "bob@corp").id == bob, "two spellings of one account")
    let error = failure { try pick(argument: "bob", option: "alice") }
    #expect(error?.status == .usage)
    #expect(error?.message == "USER 'bob' and --account 'alice' name different accounts")
    #expect(error?.fix == "give the account once")
  }

  @Test func aNameFromTheEnvironmentSaysWhereItCameFrom() {
    let typo = failure { try pick(environment: "carl", slot: alice) }
    #expect(typo?.message == "ACCOUNTS_ACCOUNT: no account 'carl'")
    #expect(typo?.fix?.hasPrefix("did you mean 'carol@") == true, "\(typo?.fix ?? "")")
    #expect(typo?.status == .loginRequired)

    let unknown = failure { try pick(environment: "zzzzzz", slot: alice) }
    #expect(unknown?.message == "ACCOUNTS_ACCOUNT: no account 'zzzzzz'")
    #expect(
      unknown?.fix == "set ACCOUNTS_ACCOUNT to a saved account (see `accounts list`) or unset it")

    let ambiguous = failure { try pick(environment: "carol", slot: alice) }
    #expect(ambiguous?.message == "ACCOUNTS_ACCOUNT: 'carol' could be 'carol@corp' or 'carol@test'")
    #expect(ambiguous?.status == .usage)
  }

  @Test func aNameOnTheCommandLineKeepsItsOwnError() {
    let error = failure { try pick(argument: "carl") } as? AccountLookupError
    #expect(error == .unknown("carl", backend: nil, suggestions: ["carol@corp", "carol@test"]))
    #expect(failure { try pick(option: "zzzzzz", slot: alice) } is AccountLookupError)
  }
}
