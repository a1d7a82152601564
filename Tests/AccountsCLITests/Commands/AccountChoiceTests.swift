@testable import AccountsContract
@testable import AccountsCore
import AccountsServices
import AccountsSystem
import Foundation
import TestDoubles
import Testing

@testable import AccountsCLI

/// The resolver wired to the command line: `which --explain`'s words, the directory a deleted
/// working directory had, and USER, --account and ACCOUNTS_ACCOUNT from where a command finds
/// them (the rules themselves: AccountsCoreTests' AccountChoiceTests).
@Suite struct AccountChoiceWiringTests {
  let alice = AccountID(user: "alice", backend: "corp")
  let bob = AccountID(user: "bob", backend: "corp")
  let carolCorp = AccountID(user: "carol", backend: "corp")
  let carolTest = AccountID(user: "carol", backend: "test")
  /// alice@corp (in the slot), bob@corp, carol@corp and carol@test.
  let book: AccountBook

  init() throws {
    book = try .named(["alice@corp", "bob@corp", "carol@corp", "carol@test"], autoLogin: AccountID(user: "alice", backend: "corp"))
  }

  @Test func whichExplainsTheDecidingStepThenTheStateOfTheOthers() {
    let rule = DirectoryRule(directory: "/home/u/work/corp", account: alice)
    func explain(_ choice: AccountChoice, option: String? = nil, variable: String? = nil, rule: DirectoryRule?) -> String {
      WhichCommand.steps(choice, option: option, variable: variable, rule: rule, slot: bob, home: "/home/u")
        .joined(separator: "; ")
    }
    #expect(
      explain(AccountChoice(id: alice, source: .rule, rule: rule), rule: rule)
        == "rule ~/work/corp; ACCOUNTS_ACCOUNT unset; the auto-login slot holds bob@corp")
    #expect(
      explain(AccountChoice(id: carolTest, source: .environment), variable: "carol@test", rule: rule)
        == "ACCOUNTS_ACCOUNT=carol@test; rule ~/work/corp gives alice@corp; the auto-login slot holds bob@corp")
    #expect(
      explain(AccountChoice(id: bob, source: .slot), rule: nil)
        == "the auto-login slot; ACCOUNTS_ACCOUNT unset; no rule for this directory")
  }

  /// Where a deleted working directory was: the kernel's record first (physical, as rules
  /// are), PWD when there is none, nothing from a PWD that is relative or not normalised.
  @Test func aDeletedDirectoryIsMatchedByThePathItHad() {
    let former = WorkingDirectory.formerPath
    #expect(former("/home/u/work/corp/gone (deleted)", "/home/u/link/gone") == "/home/u/work/corp/gone")
    #expect(former(nil, "/home/u/work/corp/gone") == "/home/u/work/corp/gone")
    #expect(former("/home/u/work/corp/gone", "/x") == "/x", "not a deleted directory's record")
    #expect(former(nil, "work/corp") == nil)
    #expect(former(nil, "/home/u/work/corp/../oss") == nil)
    #expect(former(nil, nil) == nil)
    #expect(WorkingDirectory.deleted(formerPath: "/a").rulePath == "/a")
    #expect(WorkingDirectory.deleted(formerPath: "/a").path == nil, "no relative path resolves against it")
  }

  /// The wiring: USER, --account and ACCOUNTS_ACCOUNT come from where a command finds them,
  /// and names honour --backend.
  @Test func anEnvironmentPicksFromTheInvocationAndItsVariables() throws {
    let parser = Parser(commands: CommandTable.all + Shapes.all, defaultCommand: "token")
    func choice(_ arguments: [String], _ variables: [String: String]) throws -> AccountChoice {
      guard case .run(let invocation) = try parser.parse(arguments) else {
        throw CommandError.usage("no run")
      }
      return try environment(variables).pickAccount(invocation, in: book)
    }
    let carol = ["ACCOUNTS_ACCOUNT": "carol@test"]
    #expect(try choice(["token"], carol) == AccountChoice(id: carolTest, source: .environment))
    #expect(
      try choice(["token", "--account", "bob"], carol) == AccountChoice(id: bob, source: .option))
    #expect(
      try choice(["token", "carol", "--backend", "corp"], carol)
        == AccountChoice(id: carolCorp, source: .argument))
    #expect(try choice(["exec", "--", "carol"], [:]) == AccountChoice(id: alice, source: .slot))
  }

  func environment(_ variables: [String: String]) -> Environment {
    let nowhere = "/nonexistent/accounts-tests"
    return Environment(
      variables: variables,
      paths: Paths(configDirectory: nowhere, stateDirectory: nowhere, dataDirectory: nowhere),
      terminal: Terminal(canPrompt: false, errorIsTerminal: false), output: Output(),
      now: { Timestamp(secondsSince1970: 1_800_000_000) },
      makeSecretStore: { throw CommandError.usage("no keyring in unit tests") })
  }

  // The rule step of SPEC §3 when the working directory was deleted: the path it had decides,
  // and when that is unknown the step fails instead of falling through to the slot.

  /// An environment whose config.json holds one rule, /work/corp -> alice@corp, and whose
  /// working directory is `here`.
  func environment(_ here: WorkingDirectory) throws -> (Environment, cleanUp: () -> Void) {
    let root = NSTemporaryDirectory() + "accounts-cli-tests-" + UUID().uuidString
    let paths = Paths(configDirectory: root + "/config", stateDirectory: root + "/state", dataDirectory: root + "/data")
    try FileManager.default.createDirectory(
      atPath: paths.configDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try #"{"version": 1, "backends": {}, "rules": {"/work/corp": "alice@corp"}}"#.write(
      toFile: paths.config, atomically: false, encoding: .utf8)
    chmod(paths.config, 0o600)
    let environment = Environment(
      variables: [:], paths: paths, terminal: Terminal(canPrompt: false, errorIsTerminal: false), output: Output(),
      now: { Timestamp(secondsSince1970: 1_800_000_000) },
      makeSecretStore: { throw CommandError.usage("no keyring in unit tests") }, currentDirectory: { here })
    return (environment, { try? FileManager.default.removeItem(atPath: root) })
  }

  @Test func theRuleOfTheDeletedDirectorysFormerPathDecides() throws {
    let alice = AccountID(user: "alice", backend: "corp")
    let (deleted, cleanUp) = try environment(.deleted(formerPath: "/work/corp/build"))
    defer { cleanUp() }
    let found = try deleted.directoryRule()
    #expect(found.rule?.account == alice && found.deleted == "/work/corp/build")

    let (present, cleanUpPresent) = try environment(.present("/work/corp/build"))
    defer { cleanUpPresent() }
    let here = try present.directoryRule()
    #expect(here.rule?.account == alice && here.deleted == nil)

    let (outside, cleanUpOutside) = try environment(.deleted(formerPath: "/work/corporate"))
    defer { cleanUpOutside() }
    #expect(try outside.directoryRule().rule == nil)
  }

  @Test func aDeletedDirectoryWhosePathIsUnknownFailsRatherThanUseTheSlot() throws {
    let (environment, cleanUp) = try environment(.deleted(formerPath: nil))
    defer { cleanUp() }
    let error = #expect(throws: CommandError.self) { try environment.directoryRule() }
    #expect(error?.status == .failure)
    #expect(error?.message.contains("the current directory was deleted") == true, "\(String(describing: error))")
    #expect(error?.fix?.contains("ACCOUNTS_ACCOUNT") == true)
  }
}
