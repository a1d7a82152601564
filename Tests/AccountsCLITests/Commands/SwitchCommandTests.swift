import AccountsSystem
import Testing

@testable import AccountsCLI

/// `switch`: `-` and a name bind to USER, and nothing at all when USER is left out (the picker).
@Suite struct SwitchCommandTests {
  @Test func userIsOptionalOnlyForThePicker() throws {
    let parser = Parser(commands: CommandTable.all, defaultCommand: "list")
    for (words, user) in [(["switch"], nil), (["switch", "-"], "-"), (["switch", "bob"], "bob")]
      as [([String], String?)]
    {
      guard case .run(let invocation) = try parser.parse(words) else {
        Issue.record("\(words) did not parse to a run")
        continue
      }
      #expect(invocation.argument(SwitchCommand.target) == user, "\(words)")
    }
    #expect(throws: CommandError.self) { try parser.parse(["switch", "bob", "alice"]) }
  }
}
