import AccountsContract
import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCLI

/// `accounts login --stale`, run in process: every chosen account whose session is gone is
/// logged in again with its remembered password, except one another holder leases, which only
/// its holder logs in.
@Suite struct LoginCommandTests {
  let world: TestEnvironment
  let qa1: AccountID
  let qa2: AccountID

  init() throws {
    world = try TestEnvironment()
    try world.addBackend()
    qa1 = try world.addAccount("qa1", password: "pw1", tags: ["qa"])
    qa2 = try world.addAccount("qa2", password: "pw2", tags: ["qa"])
  }

  @Test func staleSessionsAreLoggedInAgainWithTheirRememberedPasswords() {
    let result = world.run("login", "--stale", "--tag", "qa")
    #expect(result.status == .success)
    #expect(result.messages.count == 3, "\(result.messages)")
    #expect(result.messages.first?.hasPrefix("qa1@corp: logged in until ") == true, "\(result.messages)")
    #expect(result.messages.last == "logged in 2, fresh 0, skipped 0, failed 0")
    #expect(world.host.calls.sorted() == ["login qa1 pw1", "login qa2 pw2"])
  }

  @Test func anAccountAnotherHolderLeasesIsSkippedSayingWho() throws {
    let result = try world.leasedElsewhere(qa1) { world.run("login", "--stale", "--tag", "qa") }
    #expect(result.status == .success, "a leased account is no failure")
    #expect(result.messages.count == 3, "\(result.messages)")
    #expect(result.messages[0].hasPrefix("qa1@corp: skipped: leased by ci-7:4242 since "), "\(result.messages)")
    #expect(result.messages[0].hasSuffix("; only its holder logs it in"))
    #expect(result.messages[1].hasPrefix("qa2@corp: logged in until "))
    #expect(result.messages[2] == "logged in 1, fresh 0, skipped 1, failed 0")
    #expect(world.host.calls == ["login qa2 pw2"], "the leased account's backend saw nothing")
    #expect(try world.book[qa1]?.token == nil)
  }

  @Test func withJSONTheLeasedAccountsReasonNamesItsHolder() throws {
    let result = try world.leasedElsewhere(qa1) { world.run("login", "--stale", "qa1", "--json") }
    #expect(result.status == .success)
    #expect(result.output.contains("\"action\": \"skipped\""), "\(result.output)")
    #expect(result.output.contains("\"reason\": \"leased by ci-7:4242 since "), "\(result.output)")
    #expect(world.host.calls.isEmpty)
  }

  /// --force is for the user who knows the holder is gone: the leased account is logged in.
  @Test func forceLogsInALeasedAccountToo() throws {
    let result = try world.leasedElsewhere(qa1) { world.run("login", "--stale", "qa1", "--force") }
    #expect(result.status == .success)
    #expect(result.messages.last == "logged in 1, fresh 0, skipped 0, failed 0", "\(result.messages)")
    #expect(world.host.calls == ["login qa1 pw1"])
  }
}
