import Foundation
import TestSupport
import Testing

/// `accounts backend add`, `show` and `test` from the outside: the binary, a real headless
/// keyring, the built-in adapters and the test backend on 127.0.0.1. Settings are checked
/// against the adapter, a secret setting lives in the keyring only, and a base_url that holds
/// credentials or a non-ASCII host is refused.
@Suite(.blocking) struct BackendCommandTests {
  static let appID = "170ib799dd511e7b66000163e033322"
  /// The signed backend's private key in these tests: unlike the test backend's default app,
  /// not the app id, so that finding its bare value anywhere is a leak.
  static let privateKey = "pk-7f3e9c2a51d84b06a9e1c4d2b8f7a603"

  /// A signed backend: its key in the keyring only, one test login.
  @Test func signedBackendAddShowAndTest() throws {
    let world = try Fixture().serving(arguments: ["--app", "\(Self.appID):\(Self.privateKey):plain"])
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    try sandbox.addBackend(
      "corp", adapter: "signed", settings: ["base_url=\(backend.url)/signed/api", "app_id=\(Self.appID)", "ver=1.0"],
      secret: ("private_key", Self.privateKey))
    // The keyring's files are encrypted: the bare key appears in no file of the sandbox, in
    // whatever quoting (config.json, the index, a backup, a temporary file).
    #expect(filesContaining(Self.privateKey, under: sandbox.keyring.root).isEmpty)
    let config = try String(contentsOfFile: sandbox.environment["XDG_CONFIG_HOME"]! + "/accounts/config.json", encoding: .utf8)
    #expect(!config.contains("\"private_key\":"), "the key's value never reaches config.json: \(config)")
    #expect(try sandbox.keyringItems(backend: "corp").contains("label = accounts: backend corp private_key"))

    let show = try sandbox.ok(["backend", "show", "corp"]).standardOutput
    #expect(squeezed(show).contains("private_key (in keyring)") && squeezed(show).contains("plat (default: linux)"), "\(show)")
    #expect(!show.contains(Self.privateKey), "\(show)")
    let shown = try #require(try sandbox.json(["backend", "show", "corp", "--json"]) as? [String: Any])
    #expect(shown["secret_settings"] as? [String] == ["private_key"])
    #expect(shown["problems"] as? [String] == [])

    let tested = try sandbox.ok(["backend", "test", "corp", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(tested.standardError.contains("alice@corp: logged in through adapter signed (userId 1001); the token is valid for 1 h"), "\(tested)")
    #expect(tested.standardError.contains("logged out again"))
    let paths = try backend.requests().compactMap { $0["path"] as? String }
    #expect(paths == ["/signed/api/login"], "no logout_path: LOGOUT stays local")
    #expect(try sandbox.ok(["list", "--json"]).standardOutput == "[]\n", "backend test stores no account")
    #expect(!(try sandbox.keyringItems(backend: "corp")).contains("token"), "nor a token")
    #expect(filesContaining(Self.privateKey, under: sandbox.keyring.root).isEmpty, "a login leaves no copy either")

    let wrong = try sandbox.run(["backend", "test", "corp", "alice", "--password-stdin"], stdin: "654321\n")
    #expect(wrong.status == 4)
    #expect(wrong.standardError == "accounts: alice@corp: wrong username or password; check the user name and password\n")
    try backend.control("retire", ["app_id": Self.appID])
    let retired = try sandbox.run(["backend", "test", "corp", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(retired.status == 6)
    #expect(retired.standardError.contains("get the update: https://example.invalid/update/\(Self.appID)"), "\(retired)")
  }

  @Test func eachBuiltInAdapterLogsInThroughTheCommandLine() throws {
    let world = try Fixture().serving(arguments: ["--hmac-time-zone", "+08:00"])
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    // md5-hmac needs hmac_key: --secret-stdin gives it without a terminal.
    try sandbox.addBackend(
      "md5h", settings: ["base_url=\(backend.url)/plain/md5-hmac", "encoding=md5-hmac"],
      secret: ("hmac_key", "qianqian"))
    try sandbox.addBackend(
      "get", settings: ["base_url=\(backend.url)/plain/base64", "encoding=base64", "method=GET", "allow_insecure_transport=true"])
    try sandbox.addBackend(
      "hm", adapter: "hmac", settings: ["base_url=\(backend.url)/hmac", "time_zone=+08:00"],
      secret: ("hmac_key", "qianqian"))
    for name in ["md5h", "get", "hm"] {
      let result = try sandbox.run(["backend", "test", name, "bob", "--password-stdin"], stdin: "hunter2\n")
      #expect(result.status == 0, "\(name): \(result)")
      #expect(result.standardError.contains("bob@\(name): logged in through adapter"), "\(name): \(result)")
      let wrong = try sandbox.run(["backend", "test", name, "bob", "--password-stdin"], stdin: "hunter3\n")
      #expect(wrong.status == 4, "\(name): \(wrong)")
    }
    // The hmac proof is bound to the minute in the backend's zone: another zone is refused.
    try backend.control("time-zone", ["time_zone": "-05:00"])
    #expect(try sandbox.run(["backend", "test", "hm", "bob", "--password-stdin"], stdin: "hunter2\n").status == 4)
  }

  @Test func backendAddChecksSettingsAgainstTheAdapter() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let signed = ["--adapter", "signed", "--set", "base_url=https://api.example/api", "--set", "ver=1.0"]

    let typo = try sandbox.run(["backend", "add", "corp"] + signed + ["--set", "app_idd=x", "--secret-stdin", "private_key"], stdin: "k\n")
    #expect(typo.status == 2)
    #expect(typo.standardError.hasPrefix("accounts: backend corp: adapter has no setting 'app_idd'; did you mean 'app_id'?"), "\(typo)")

    let missing = try sandbox.run(["backend", "add", "corp"] + signed + ["--secret-stdin", "private_key"], stdin: "k\n")
    #expect(missing.status == 2)
    #expect(missing.standardError.contains("setting app_id is required"), "\(missing)")

    let noTerminal = try sandbox.run(["backend", "add", "corp"] + signed + ["--set", "app_id=a"])
    #expect(noTerminal.status == 2)
    #expect(noTerminal.standardError == "accounts: no terminal to ask for the private_key; pipe it in with --secret-stdin private_key\n")

    let badValue = try sandbox.run(["backend", "add", "corp"] + signed + ["--set", "app_id=a", "--set", "password_encoding=rot13", "--secret-stdin", "private_key"], stdin: "k\n")
    #expect(badValue.status == 2)
    #expect(badValue.standardError.contains("rot13"), "\(badValue)")

    let insecure = try sandbox.run(["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=http://api.example"])
    #expect(insecure.status == 2)
    #expect(insecure.standardError.contains("allow_insecure_transport=true"), "\(insecure)")

    let unknownAdapter = try sandbox.run(["backend", "add", "corp", "--adapter", "plian", "--set", "base_url=https://x"])
    #expect(unknownAdapter.status == 9)
    #expect(unknownAdapter.standardError.contains("did you mean 'plain'?"))

    #expect(try sandbox.ok(["backend", "list", "--json"]).standardOutput == "[]\n", "nothing was recorded")
    #expect(!(try sandbox.keyringItems(backend: "corp")).contains("private_key"), "no secret left behind")
  }

  @Test func showReportsSettingsTheAdapterDoesNotKnow() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let path = sandbox.environment["XDG_CONFIG_HOME"]! + "/accounts/config.json"
    let config = try String(contentsOfFile: path, encoding: .utf8)
    try config.replacingOccurrences(of: "\"base_url\"", with: "\"bogus\": \"x\", \"base_url\"")
      .write(toFile: path, atomically: true, encoding: .utf8)
    let shown = try sandbox.run(["backend", "show", "corp"])
    #expect(shown.status == 1)
    #expect(squeezed(shown.standardOutput).contains("bogus x (not declared by the adapter)"), "\(shown)")
    #expect(shown.standardError.hasPrefix("accounts: backend corp: adapter has no setting 'bogus'"), "\(shown)")
    let doctor = try sandbox.run(["doctor"])
    #expect(doctor.status != 0 && doctor.standardOutput.contains("FAIL  backend corp"), "\(doctor)")
  }

  @Test func baseURLsWithCredentialsAreRefused() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let result = try sandbox.run(["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=https://alice:Hunter2-x9@api.corp.example"])
    #expect(result.status == 2)
    #expect(result.standardError.hasPrefix("accounts: backend corp: base_url must not hold a user name or password"), "\(result)")
    let port = try sandbox.run(["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=https://api.corp.example:99999"])
    #expect(port.status == 2 && port.standardError.contains("base_url has an invalid port '99999'"), "\(port)")
    #expect(try sandbox.ok(["backend", "list", "--json"]).standardOutput == "[]\n")
    #expect(filesContaining("Hunter2-x9", under: sandbox.keyring.root) == [])
  }

  /// The ASCII form comes from libidn2 (UTS #46): a decomposed ü or fullwidth letters, as
  /// some keyboards and input methods type them, name the host a resolver would look up.
  @Test func aNonASCIIHostIsRefusedNamingItsASCIIForm() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    for host in ["bücher.example", "bu\u{0308}cher.example", "ｂüｃｈｅｒ．ｅｘａｍｐｌｅ"] {
      let (result, loaded) = try sandbox.runNotingLibraries(
        ["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=https://\(host)/api"])
      #expect(result.status == 2, "\(result)")
      #expect(
        result.standardError.hasPrefix(
          "accounts: backend corp: base_url has a non-ASCII host '\(host)'; "
            + "write it in its ASCII (IDNA) form: https://xn--bcher-kva.example/api"), "\(result)")
      #expect(loaded.contains("libidn2.so.0"), "libidn2 converts it")
    }
    let (ascii, loaded) = try sandbox.runNotingLibraries(
      ["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=https://xn--bcher-kva.example/api"])
    #expect(ascii.status == 0, "\(ascii)")
    #expect(!loaded.contains("libidn2.so.0"), "an ASCII host loads no libidn2")
    let refused = try sandbox.run(["backend", "set", "corp", "base_url=https://bu\u{0308}cher.example/v2"])
    #expect(refused.status == 2, "\(refused)")
    #expect(refused.standardError.contains("write it in its ASCII (IDNA) form: https://xn--bcher-kva.example/v2"), "\(refused)")
  }

  /// A secret setting is read from the keyring only: one written into config.json by hand is
  /// never used in its place.
  @Test func aSecretSettingIsNeverReadFromConfigJSON() throws {
    let world = try Fixture().serving()
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    let key = "170ib799dd511e7b66000163e033322"
    try sandbox.addBackend(
      "corp", adapter: "signed", settings: ["base_url=\(backend.url)/signed/api", "app_id=\(key)", "ver=1.0"],
      secret: ("private_key", key))
    let cleared = try runProcess(
      "/usr/bin/secret-tool", ["clear", "backend", "corp", "kind", "setting:private_key"],
      environment: sandbox.environment, timeout: 20)
    #expect(cleared.status == 0)
    let missing = try sandbox.run(["backend", "test", "corp", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(missing.status == 3, "\(missing)")
    #expect(missing.standardError.contains("its secret setting private_key is not in the keyring"))
    let config = sandbox.environment["XDG_CONFIG_HOME"]! + "/accounts/config.json"
    let text = try String(contentsOfFile: config, encoding: .utf8)
    try text.replacingOccurrences(of: "\"app_id\"", with: "\"private_key\": \"\(key)\", \"app_id\"")
      .write(toFile: config, atomically: true, encoding: .utf8)
    let planted = try sandbox.run(["backend", "test", "corp", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(planted.status != 0, "\(planted)")
    #expect(planted.standardError.contains("'private_key' is a secret setting"), "\(planted)")
    #expect(try backend.requests().isEmpty, "nothing was signed with the key from config.json")
  }
}
