import AccountsContract
import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCLI

/// `-q/--quiet`, run in process: the status lines of any command go, warnings, the failures
/// of parts of the work and the command's own error stay.
@Suite struct QuietTests {
  let world: TestEnvironment

  init() throws {
    world = try TestEnvironment()
    try world.addBackend()
  }

  @Test func quietDropsTheStatusLinesOfAnyCommand() throws {
    let loud = world.run("add", "alice@corp")
    #expect(loud.status == .success && loud.messages == ["saved alice@corp without a password"], "\(loud)")
    for words in [["-q", "add", "bob@corp"], ["tag", "bob@corp", "qa", "--quiet"], ["--quiet", "remove", "alice@corp"]] {
      let quiet = world.run(words)
      #expect(quiet.status == .success, "\(words): \(quiet)")
      #expect(quiet.messages.isEmpty, "\(words): \(quiet.messages)")
    }
    #expect(try world.book.accounts.map(\.id.description) == ["bob@corp"])
    #expect(try world.book[AccountID(user: "bob", backend: "corp")]?.tags == ["qa"])
  }

  @Test func quietKeepsTheErrorAndTheDataOnStdout() {
    let failed = world.run("-q", "remove", "nobody@corp")
    #expect(failed.status != .success, "\(failed)")
    #expect(failed.error?.message.contains("nobody") == true, "the error is still reported: \(failed)")
    _ = world.run("add", "carol@corp")
    let listed = world.run("-q", "list", "--names")
    #expect(listed.output == "carol@corp\n")
  }

  @Test func quietKeepsWarningsAndFailures() {
    let messages = MessageLog()
    let output = Output(writeMessage: messages.append)
    output.quiet = true
    output.message("saved alice@corp")
    output.warning("leases not shown: the store did not answer")
    output.failure("alice@corp: failed: the backend did not answer")
    #expect(messages.lines == [
      "accounts: warning: leases not shown: the store did not answer", "alice@corp: failed: the backend did not answer",
    ])
  }
}

/// Lines an `Output` wrote for stderr.
private final class MessageLog: @unchecked Sendable {
  private var bytes: [UInt8] = []
  func append(_ more: [UInt8]) { bytes += more }
  var lines: [String] { String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init) }
}
