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

  /// Password items also carry KeePassXC's own UserName and URL (the backend's base_url), so
  /// its entry shows them and its browser integration matches the site. An item stored before
  /// (the schema's attributes, service and username only) is still read by the schema's own
  /// attributes, and the next store gives it the rest in place: one item, never a second.
  @Test(arguments: SecretServiceProvider.allCases)
  func passwordItemsCarryUserNameAndURLAndOlderItemsKeepWorking(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp").saving("alice", password: "alice-pw").saving("bob")
    defer { world.close() }
    let sandbox = world.sandbox
    let alice = try sandbox.keyringItems(backend: "corp")
    #expect(alice.contains("attribute.UserName = alice"), "\(alice)")
    #expect(alice.contains("attribute.URL = https://corp.example/api"), "\(alice)")

    // bob's password as accounts stored it before: no UserName, no URL; the index claims it.
    let planted = try runProcess(
      "/usr/bin/secret-tool",
      ["store", "--label", "accounts: bob@corp password", "xdg:schema", "io.accounts.Secret", "backend", "corp", "account", "bob",
       "kind", "password", "service", "accounts:corp", "username", "bob"],
      environment: sandbox.environment, standardInput: "old-pw", timeout: 20)
    #expect(planted.status == 0, "\(planted)")
    var index = try sandbox.indexJSON()
    index["accounts"] = (index["accounts"] as? [[String: Any]])?.map { account in
      var account = account
      if account["user"] as? String == "bob" { account["remembered"] = true }
      return account
    }
    try JSONSerialization.data(withJSONObject: index).write(to: URL(fileURLWithPath: sandbox.indexPath))
    #expect(try sandbox.ok(["password", "bob"]).standardOutput == "old-pw\n", "found by the schema's own attributes")

    try sandbox.ok(["passwd", "bob", "--password-stdin"], stdin: "new-pw\n")
    let bob = try runProcess(
      "/usr/bin/secret-tool", ["search", "--all", "backend", "corp", "account", "bob", "kind", "password"],
      environment: sandbox.environment, timeout: 20)
    let seen = bob.standardOutput + bob.standardError
    #expect(seen.components(separatedBy: "attribute.kind = password").count == 2, "one item: \(seen)")
    #expect(seen.contains("attribute.UserName = bob") && seen.contains("attribute.URL = https://corp.example/api"), "\(seen)")
    #expect(try sandbox.ok(["password", "bob"]).standardOutput == "new-pw\n")
    #expect(try lookUp(["service", "accounts:corp", "username", "bob"], sandbox).standardOutput == "new-pw")
    #expect(try sandbox.invariantViolations().isEmpty)
  }
}
