import Foundation
import TestSupport
import Testing

/// Other Secret Service clients find a remembered password by the common attributes
/// (`service`, `username`: python keyring, scripts with secret-tool), while accounts keeps
/// matching its schema's own, so that a new password still replaces the one item.
@Suite(.blocking) struct KeyringInteropTests {
  func lookUp(_ attributes: [String], _ sandbox: Sandbox) throws -> ProcessResult {
    try runProcess("/usr/bin/secret-tool", ["lookup"] + attributes, environment: sandbox.environment, timeout: 20)
  }

  @Test(arguments: SecretServiceProvider.allCases)
  func aRememberedPasswordIsFoundByServiceAndUsername(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "first-pw\n")
    let first = try lookUp(["service", "accounts:corp", "username", "alice"], sandbox)
    #expect(first.status == 0 && first.standardOutput == "first-pw", "\(first)")

    try sandbox.ok(["passwd", "alice", "--password-stdin"], stdin: "second-pw\n")
    let second = try lookUp(["service", "accounts:corp", "username", "alice"], sandbox)
    #expect(second.status == 0 && second.standardOutput == "second-pw", "\(second)")
    let items = try runProcess(
      "/usr/bin/secret-tool", ["search", "--all", "service", "accounts:corp"], environment: sandbox.environment,
      timeout: 20)
    // secret-tool prints the attributes on stderr.
    let seen = items.standardOutput + items.standardError
    #expect(seen.components(separatedBy: "attribute.username = alice").count == 2, "one item: \(items)")
    #expect(seen.contains("attribute.kind = password"), "\(items)")
    let schema = try lookUp(["backend", "corp", "account", "alice", "kind", "password"], sandbox)
    #expect(schema.standardOutput == "second-pw", "the schema's own attributes still find it: \(schema)")
    #expect(try sandbox.ok(["password", "alice"]).standardOutput == "second-pw\n")
  }
}
