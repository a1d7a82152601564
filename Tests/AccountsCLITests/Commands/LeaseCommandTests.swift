import AccountsContract
import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCLI

/// `accounts lease` without a command, run in process: a detached lease of the first free
/// account (its session made live), its id on stdout, and exit 10 when none is free.
@Suite struct LeaseCommandTests {
  let world: TestEnvironment
  let qa1: AccountID
  let qa2: AccountID

  init() throws {
    world = try TestEnvironment()
    try world.addBackend()
    qa1 = try world.addAccount("qa1", password: "pw1", tags: ["qa"])
    qa2 = try world.addAccount("qa2", password: "pw2", tags: ["qa"])
  }

  @Test func aDetachedLeaseTakesTheFirstFreeAccountAndPrintsItsID() throws {
    let result = try world.leasedElsewhere(qa1) { world.run("lease", "--tag", "qa", "--ttl", "10m") }
    #expect(result.status == .success)
    let id = result.output.trimmingSuffix("\n")
    #expect(LeaseID.isValid(id), "\(result.output)")
    #expect(result.messages.last?.hasPrefix("leased qa2@corp until ") == true, "\(result.messages)")
    #expect(result.messages.last?.hasSuffix("; end it early with `accounts release \(id)`") == true)
    #expect(try world.lease(of: qa2)?.lease == id)
    #expect(try world.lease(of: qa2)?.expiresAt != nil, "detached: it ends by itself")
    #expect(world.host.calls == ["login qa2 pw2"], "its session made live; the leased account untouched")
  }

  @Test func withJSONTheLeaseNamesItsAccountsExpiryAndFence() throws {
    let result = world.run("lease", "qa2", "--ttl", "30m", "--json")
    #expect(result.status == .success)
    let record = try #require(try world.lease(of: qa2))
    #expect(result.output.contains("\"lease\": \"\(record.lease)\""), "\(result.output)")
    #expect(result.output.contains("\"accounts\": [\n    \"qa2@corp\"\n  ]"), "\(result.output)")
    #expect(result.output.contains("\"fence\": \(record.fence)"))
    #expect(result.output.contains("\"expires_at\": \"\(record.expiresAt?.iso8601 ?? "-")\""))
  }

  @Test func noFreeAccountIsExit10NamingTheHolder() throws {
    let result = try world.leasedElsewhere(qa1) { world.run("lease", "qa1", "--ttl", "10m") }
    #expect(result.status == .noAccountFree)
    #expect(result.output.isEmpty)
    #expect(result.error?.message.contains("ci-7:4242") == true, "\(String(describing: result.error?.message))")
    #expect(world.host.calls.isEmpty)
  }

  @Test func aLeaseWithoutACommandNeedsATTL() {
    let result = world.run("lease", "--tag", "qa")
    #expect(result.status == .usage)
    #expect(result.error?.message == "a lease without a command to run needs --ttl")
    #expect(result.error?.fix == "give --ttl 30m, or the command to run after --")
  }
}

extension String {
  fileprivate func trimmingSuffix(_ suffix: String) -> String {
    hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
  }
}
