import AccountsContract
import AccountsCore
import Testing

@testable import AccountsCLI
import AccountsSystem

/// `status --jobs N`: 1 to 64; out of that a usage error (exit 2) that names the fix.
@Suite struct JobCountTests {
  let parser = Parser(commands: CommandTable.all, defaultCommand: "list")

  func jobs(_ text: String) throws -> Int {
    guard case .run(let invocation) = try parser.parse(["status", "--jobs", text]) else {
      Issue.record("status --jobs \(text) did not parse to a command")
      throw CommandError.usage("not a command")
    }
    return try StatusCommand.jobCount(invocation)
  }

  @Test func theBoundsAreAccepted() throws {
    #expect(try jobs("1") == 1)
    #expect(try jobs("64") == 64)
  }

  @Test(arguments: ["0", "65"]) func outOfBoundsIsAUsageErrorWithExitStatus2(_ text: String) throws {
    let error = try #require(throws: CommandError.self) { try jobs(text) }
    #expect(error.status == .usage)
    #expect(error.status.rawValue == 2)
    #expect(error.message == "--jobs '\(text)' is not a number from 1 to 64")
    #expect(error.fix == "e.g. --jobs 8")
  }
}
