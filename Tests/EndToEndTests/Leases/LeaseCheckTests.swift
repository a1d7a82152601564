import Foundation
import TestSupport
import Testing

/// The line the README gives a framework to check its own lease, run as written: it holds
/// while the lease is renewed, and says "lease lost" once the keeper died and the lease ran
/// out, and once another runner holds the account.
@Suite(.blocking) struct LeaseCheckTests {
  static func readmeCheck() throws -> String {
    let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
    let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
    let first = try #require(lines.firstIndex { $0.hasPrefix("accounts leases --json | jq -e") })
    let end = try #require(lines[first...].firstIndex { $0.hasPrefix("```") })
    return lines[first..<end].joined(separator: "\n")
  }

  @Test func theREADMEsCheckSaysALeaseIsLostOnceItRanOutOrWasTaken() throws {
    let check = try Self.readmeCheck()
    let world = try Fixture.sharingRedis(machines: 1, users: ["qa1"])
    defer { world.close() }
    let (holder, release) = try world.renewedLease(ttl: "3s")
    defer { release() }
    let id = try #require(try world.a.leases().first?["lease"] as? String)
    var environment = world.a.environment
    environment["PATH"] = PackagePaths.products.path + ":/usr/bin:/bin"
    environment["ACCOUNTS_LEASE_ID"] = id
    environment["ACCOUNTS_LEASED"] = "qa1@corp"
    func checked() throws -> String {
      try runProcess("/bin/sh", ["-c", check], environment: environment, timeout: 30).standardOutput
    }
    #expect(try checked() == "", "held and renewed")

    let keeper = try #require(holder.keeper())
    kill(keeper, SIGKILL)
    #expect(waitUntil(seconds: 10) { world.millisecondsLeft("accounts:lease:corp:qa1") == -2 }, "ran out")
    #expect(try checked() == "lease lost\n", "no row of its id is no lease")

    try world.a.ok(["lease", "qa1", "--ttl", "1m"])
    #expect(try checked() == "lease lost\n", "another lease holds the account")
  }
}
