import AccountsContract
import AccountsCore
import Testing

@testable import AccountsCLI
import AccountsSystem

/// `otp` is a group whose default subcommand takes words: `otp alice` is `otp code alice`,
/// while a group whose default takes none (`backend`) still calls another word a mistake.
@Suite struct OTPParserTests {
  let parser = Parser(commands: CommandTable.all, defaultCommand: "list")

  func invocation(_ arguments: [String]) throws -> Invocation? {
    guard case .run(let invocation) = try parser.parse(arguments) else { return nil }
    return invocation
  }

  @Test func aWordAfterOTPIsTheCodesAccount() throws {
    for arguments in [
      ["otp", "alice"], ["otp", "code", "alice"], ["otp", "alice", "--at", "59"], ["otp", "--at=59", "alice"],
    ] {
      let parsed = try #require(try invocation(arguments), "\(arguments)")
      #expect(parsed.path.name == "otp code", "\(arguments)")
      #expect(parsed.argument(SharedArguments.optionalAccount) == "alice", "\(arguments)")
    }
    let bare = try #require(try invocation(["otp", "--at", "59"]))
    #expect(bare.path.name == "otp code")
    #expect(bare.value(OTPCodeCommand.at) == "59")
    #expect(try invocation(["otp"])?.path.name == "otp code")
    #expect(try invocation(["otp", "set", "alice", "--remove"])?.path.name == "otp set")
  }

  @Test func otherGroupsStillRefuseAnUnknownWord() {
    #expect(throws: CommandError.self) { try parser.parse(["backend", "frob"]) }
    #expect(throws: CommandError.self) { try parser.parse(["otp", "alice", "bob"]) }
    #expect(throws: CommandError.self) { try parser.parse(["otp", "set"]) }
  }
}
