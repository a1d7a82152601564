import Foundation
import TestSupport
import Testing

/// `accounts backend set` from the outside: the binary, a real headless keyring (both
/// providers where a secret changes), the built-in adapters and the test backend.
@Suite(.blocking) struct BackendSetTests {
  @Test func settingsChangeInPlaceCheckedAgainstTheAdapter() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox

    let set = try sandbox.ok(["backend", "set", "corp", "check_path=me", "logout_path=logout"])
    #expect(set.standardError == "backend corp: check_path=me (was not set)\nbackend corp: logout_path=logout (was not set)\n")
    let unset = try sandbox.ok(["backend", "set", "corp", "--unset", "check_path", "logout_path=out"])
    #expect(unset.standardError == "backend corp: logout_path=out (was logout)\nbackend corp: check_path unset (was me)\n")
    let json = try #require(try sandbox.json(["backend", "set", "corp", "check_path=status", "--json"]) as? [String: Any])
    #expect(json["settings"] as? [String: String]
      == ["base_url": "https://corp.example/api", "logout_path": "out", "check_path": "status"])

    func refused(_ arguments: [String], _ status: Int32 = 2) throws -> String {
      let result = try sandbox.run(["backend", "set"] + arguments)
      #expect(result.status == status, "\(arguments): \(result)")
      return result.standardError
    }
    #expect(try refused(["corp", "chek_path=me"]).hasPrefix("accounts: backend corp: adapter has no setting 'chek_path'; did you mean 'check_path'?"))
    #expect(try refused(["corp"]).hasPrefix("accounts: backend set corp: no change given; give KEY=VALUE, --unset KEY"))
    #expect(try refused(["crop", "check_path=me"]).contains("no backend 'crop'; did you mean 'corp'?"))
    #expect(try refused(["corp", "--unset", "chek_path"]).hasPrefix("accounts: backend corp has no setting 'chek_path' to unset; did you mean 'check_path'?"))
    #expect(try refused(["corp", "--unset", "base_url"]) == "accounts: base_url is required by adapter plain and cannot be unset; give it another value with `accounts backend set corp base_url=VALUE`\n")
    #expect(try refused(["corp", "check_path=me", "--unset", "check_path"]).contains("both given a value and unset"))
    #expect(try refused(["corp", "base_url=http://corp.example"]).contains("allow_insecure_transport=true"), "the adapter checks the result")
    // The same refusal as `backend add`'s: the value would be in the process list and history.
    let clear = try refused(["corp", "hmac_key=qianqian"])
    #expect(clear.hasPrefix("accounts: backend corp: 'hmac_key' is a secret setting: it is asked for without echo (or read with --secret-stdin hmac_key) and kept in the keyring, never given on the command line"), "\(clear)")
    #expect(try refused(["corp", "encoding=md5-hmac"]).contains("hmac_key"), "md5-hmac needs a key the backend lacks")

    let config = try #require(try sandbox.configJSON()["backends"] as? [String: [String: Any]])
    #expect(config["corp"]?["settings"] as? [String: String]
      == ["base_url": "https://corp.example/api", "logout_path": "out", "check_path": "status"], "no refusal changed anything")
    #expect(!(try String(contentsOfFile: sandbox.configPath, encoding: .utf8)).contains("qianqian"))
    #expect(!(try sandbox.keyringItems(backend: "corp")).contains("hmac_key"))
  }

  /// A new private key replaces the one in the keyring (KeePassXC included: it goes through the
  /// store's replace), and logins sign with it at once; a setting changed later is checked with
  /// the key kept.
  @Test(arguments: SecretServiceProvider.allCases) func aSecretSettingIsReplacedInTheKeyring(_ provider: SecretServiceProvider) throws {
    let privateKey = BackendCommandTests.privateKey
    let world = try Fixture(provider).serving(arguments: ["--app", "\(BackendCommandTests.appID):\(privateKey):plain"])
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    try sandbox.addBackend(
      "sig", adapter: "signed",
      settings: ["base_url=\(backend.url)/signed/api", "app_id=\(BackendCommandTests.appID)", "ver=1.0"],
      secret: ("private_key", "a-wrong-key"))
    let wrongKey = try sandbox.run(["backend", "test", "sig", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(wrongKey.status != 0, "signed with the wrong key: \(wrongKey)")

    let replaced = try sandbox.ok(["backend", "set", "sig", "--secret-stdin", "private_key"], stdin: privateKey + "\n")
    #expect(replaced.standardError == "backend sig: private_key replaced in the keyring\n")
    #expect(!replaced.standardOutput.contains(privateKey) && !replaced.standardError.contains(privateKey))
    #expect(try sandbox.allKeyringItems().filter { $0.backend == "sig" }.map(\.secret) == [privateKey], "one item, the new key")
    try sandbox.ok(["backend", "test", "sig", "alice", "--password-stdin"], stdin: "123456\n")

    let ver = try sandbox.ok(["backend", "set", "sig", "ver=1.1"])
    #expect(ver.standardError == "backend sig: ver=1.1 (was 1.0)\n")
    let noTerminal = try sandbox.run(["backend", "set", "sig", "--secret", "private_key"])
    #expect(noTerminal.status == 2)
    #expect(noTerminal.standardError == "accounts: no terminal to ask for the private_key; pipe it in with --secret-stdin private_key\n")
    let required = try sandbox.run(["backend", "set", "sig", "--unset", "private_key"])
    #expect(required.standardError.contains("replace it with `accounts backend set sig --secret private_key`"), "\(required)")
    #expect(try sandbox.invariantViolations() == [])
  }

  /// An optional secret setting is added, and unset: its item leaves the keyring.
  @Test func anOptionalSecretComesAndGoes() throws {
    let world = try Fixture().serving()
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    try sandbox.addBackend("md5h", settings: ["base_url=\(backend.url)/plain/md5-hmac", "encoding=md5"])
    let added = try sandbox.ok(["backend", "set", "md5h", "encoding=md5-hmac", "--secret-stdin", "hmac_key"], stdin: "qianqian\n")
    #expect(added.standardError == "backend md5h: encoding=md5-hmac (was md5)\nbackend md5h: hmac_key stored in the keyring\n")
    try sandbox.ok(["backend", "test", "md5h", "bob", "--password-stdin"], stdin: "hunter2\n")

    let needed = try sandbox.run(["backend", "set", "md5h", "--unset", "hmac_key"])
    #expect(needed.status == 2 && needed.standardError.contains("hmac_key"), "md5-hmac still needs it: \(needed)")
    let removed = try sandbox.ok(["backend", "set", "md5h", "encoding=md5", "--unset", "hmac_key"])
    #expect(removed.standardError == "backend md5h: encoding=md5 (was md5-hmac)\nbackend md5h: hmac_key unset and deleted from the keyring\n")
    #expect(try sandbox.allKeyringItems().filter { $0.backend == "md5h" }.isEmpty)
    let shown = try #require(try sandbox.json(["backend", "show", "md5h", "--json"]) as? [String: Any])
    #expect(shown["secret_settings"] as? [String] == [])
    #expect(try sandbox.invariantViolations() == [])
  }
}
