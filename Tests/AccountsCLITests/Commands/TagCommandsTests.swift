import AccountsContract
import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCLI

/// `accounts tag USER TAG...` and `accounts untag USER TAG...`, run in process: idempotent
/// changes of the index, the account's tags said on stderr (and on stdout with --json), and
/// nothing written when a tag is not valid.
@Suite struct TagCommandsTests {
  let world: TestEnvironment
  let qa1: AccountID

  init() throws {
    world = try TestEnvironment()
    try world.addBackend()
    qa1 = try world.addAccount("qa1")
  }

  func tags() throws -> [String] { try #require(try world.book[qa1]).tags }

  @Test func tagAddsEachTagOnceAndSaysTheAccountsTags() throws {
    let first = world.run("tag", "qa1", "smoke", "qa")
    #expect(first.status == .success)
    #expect(first.messages == ["qa1@corp: tags qa, smoke"])
    #expect(first.output.isEmpty)
    #expect(try tags() == ["qa", "smoke"])
    let again = world.run("tag", "qa1", "qa")
    #expect(again.status == .success)
    #expect(again.messages == ["qa1@corp: tags qa, smoke"], "a tag it has stays once")
    #expect(try tags() == ["qa", "smoke"])
  }

  @Test func untagRemovesTagsAndATagItDoesNotHaveIsNoError() throws {
    _ = world.run("tag", "qa1", "qa", "smoke")
    let result = world.run("untag", "qa1", "smoke", "nightly")
    #expect(result.status == .success)
    #expect(result.messages == ["qa1@corp: tags qa"])
    #expect(try tags() == ["qa"])
    let last = world.run("untag", "qa1", "qa")
    #expect(last.messages == ["qa1@corp: no tags"])
    #expect(try tags() == [])
  }

  @Test func withJSONTheTagsGoToStdout() throws {
    let result = world.run("tag", "qa1", "qa", "--json")
    #expect(result.status == .success)
    #expect(result.output == "{\n  \"account\": \"qa1@corp\",\n  \"tags\": [\n    \"qa\"\n  ]\n}\n")
  }

  /// The tags are checked before the index is read: one bad tag and none is written.
  @Test func anInvalidTagIsAUsageErrorAndNothingIsWritten() throws {
    let result = world.run("tag", "qa1", "qa", "a b")
    #expect(result.status == .usage)
    #expect(result.error?.message.contains("a b") == true, "\(String(describing: result.error?.message))")
    #expect(try tags() == [])
  }

  @Test func anUnknownAccountExits3() throws {
    let result = world.run("tag", "nobody", "qa")
    #expect(result.status == .loginRequired)
    #expect(result.error?.message == "no account 'nobody'")
  }
}
