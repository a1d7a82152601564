import Foundation
import TestSupport
import Testing

/// What the built-in adapters say about replies that are not what a login expects, through the
/// command line against the test backend: each message names what happened and the fix, and
/// the exit status agrees with the words.
@Suite(.blocking) struct BackendReplyTests {
  @Test func aRedirectIsNamedWithWhereItLeadsAndTheFix() throws {
    let world = try Fixture().serving()
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    // A GET login: the password's digest is in the query, which the redirect repeats.
    try sandbox.addBackend("moved", settings: ["base_url=\(backend.url)/hostile/moved", "method=GET", "encoding=md5"])
    let result = try sandbox.run(["backend", "test", "moved", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(result.status == 8, "\(result)")
    #expect(
      result.standardError
        == "accounts: alice@moved: the backend answered with a redirect (HTTP 301) to https://example.invalid/hostile/moved/login, which accounts does not follow; check base_url (https instead of http? the right path?)\n",
      "\(result)")
    #expect(!result.standardError.contains("e10adc3949ba59abbe56e057f20f883e"), "the query is not shown")
  }

  @Test func http401AtLoginIsRejectedCredentialsWhateverTheBodySays() throws {
    let world = try Fixture().serving()
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    try sandbox.addBackend("gate", settings: ["base_url=\(backend.url)/hostile/expired401", "encoding=md5"])
    let result = try sandbox.run(["backend", "test", "gate", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(result.status == 4, "\(result)")
    #expect(
      result.standardError
        == "accounts: alice@gate: the backend rejected the user name or password (HTTP 401); check the user name and password\n",
      "\(result)")
  }

  @Test func aHugeTokenLifetimeIsClampedToTenYears() throws {
    let world = try Fixture().serving(arguments: ["--token-lifetime", "9223372036854775807"]).addingServedBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let result = try sandbox.ok(["backend", "test", "corp", "alice", "--password-stdin", "--json"], stdin: "123456\n")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    #expect(report["expires_in"] as? Int == 10 * 366 * 86_400)
    let expiresAt = try #require(report["expires_at"] as? String)
    #expect(expiresAt.count == 20 && expiresAt.hasSuffix("Z"), "a time the index can read back: \(expiresAt)")
    #expect(result.standardError.contains("the token is valid for 3660 d"), "\(result)")
  }
}
