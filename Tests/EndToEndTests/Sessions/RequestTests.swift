import Foundation
import TestSupport
import Testing

/// `accounts request` through the adapter: the account from the environment, PATH kept below
/// base_url, and `--timeout` one budget for the whole command.
@Suite(.serialized, .blocking) struct RequestTests {
  @Test func requestThroughTheAdapterWithTheAccountFromTheEnvironment() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["switch", "alice"])
    let posted = try sandbox.ok(["request", "POST", "user/info", "remark=hello"], environment: ["ACCOUNTS_ACCOUNT": "bob"])
    let reply = try #require(try JSONSerialization.jsonObject(with: Data(posted.standardOutput.utf8)) as? [String: Any])
    #expect(reply["userId"] as? Int == 1002, "ACCOUNTS_ACCOUNT picked bob: \(reply)")
    #expect((reply["params"] as? [String: Any])?["remark"] as? String == "hello", "\(reply)")
    #expect(world.slot == "alice@corp", "the slot is untouched")
    for path in ["../../control/log/clear", "me?x=1", "//other.example/x", "a/./b"] {
      let refused = try sandbox.run(["request", "bob", "GET", path])
      #expect(refused.status == 2, "PATH stays below base_url, parameters go as KEY=VALUE: \(refused)")
    }
    let explicit = try sandbox.ok(["request", "bob", "GET", "me"])
    #expect(explicit.standardOutput.contains("\"userId\": 1002") || explicit.standardOutput.contains("\"userId\":1002"), "\(explicit)")
  }

  /// The stored session expired at the backend, which answers every request after 2 s: the call
  /// (2 s, "expired") leaves 1 s of a 3 s budget for the login again, which gives up when the
  /// budget is gone instead of taking a fresh 3 s for each step (a login and a second call).
  @Test func theTimeoutBoundsTheCallTheLoginAgainAndTheRetryTogether() throws {
    let world = try Fixture.aliceBobAndCarol()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice"])
    try world.backend.control("expire", ["name": "alice"])
    try world.backend.delay(seconds: 2)
    _ = try world.seen()
    let result = try sandbox.run(["request", "alice", "GET", "me", "--timeout", "3"])
    #expect(result.status == 8, "\(result)")
    #expect(result.standardOutput.isEmpty, "\(result)")
    #expect(result.standardError.contains("--timeout 3"), "\(result)")
    // The login it gave up on is logged once the server answers it: await that, then look.
    for _ in 0..<200 where try world.backend.concurrency().current > 0 { usleep(50_000) }
    #expect(try world.seen() == ["me", "login"], "the call is not sent again")
  }
}
