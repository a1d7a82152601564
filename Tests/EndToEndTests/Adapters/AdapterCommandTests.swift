import Foundation
import TestSupport
import Testing

/// `accounts adapters` and `accounts backend add/show/test` from the outside: the binary, a
/// real headless keyring, the built-in adapters and C adapters built in the test, and the test
/// backend on 127.0.0.1.
@Suite(.blocking) struct AdapterCommandTests {
  static let appID = "170ib799dd511e7b66000163e033322"
  /// The signed backend's private key in these tests: unlike the test backend's default app,
  /// not the app id, so that finding its bare value anywhere is a leak.
  static let privateKey = "pk-7f3e9c2a51d84b06a9e1c4d2b8f7a603"

  func userAdapters(_ sandbox: Sandbox) throws -> String { try sandbox.userAdapterDirectory() }

  @Test func adaptersListsTheBuiltInsWithTheirSettings() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let adapters = try #require(try sandbox.json(["adapters", "--json"]) as? [[String: Any]])
    #expect(adapters.compactMap { $0["name"] as? String } == ["hmac", "plain", "signed"])
    for adapter in adapters {
      #expect(adapter["abi"] as? String == "1.1")
      #expect(adapter["refused"] is NSNull)
      #expect((adapter["path"] as? String)?.hasSuffix("lib\(adapter["name"]!).so") == true)
    }
    let signed = try #require(adapters.last?["settings"] as? [[String: Any]])
    let privateKey = try #require(signed.first { $0["name"] as? String == "private_key" })
    #expect(privateKey["secret"] as? Bool == true && privateKey["optional"] as? Bool == false)
    let plat = try #require(signed.first { $0["name"] as? String == "plat" })
    #expect(plat["default"] as? String == "linux")

    let detail = try sandbox.ok(["adapters", "signed"]).standardOutput
    #expect(squeezed(detail).contains("private_key secret, required - The application's private signing key"), "\(detail)")
    #expect(try sandbox.ok(["__complete", "adapters"]).standardOutput == "hmac\nplain\nsigned\n")
    let missing = try sandbox.run(["adapters", "signd"])
    #expect(missing.status == 9)
    #expect(missing.standardError.contains("no adapter 'signd'") && missing.standardError.contains("did you mean 'signed'?"))
  }

  /// The issue's scenario: a signed backend, its key in the keyring only, one test login.
  @Test func signedBackendAddShowAndTest() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let backend = try TestBackend(arguments: ["--app", "\(Self.appID):\(Self.privateKey):plain"])
    try sandbox.ok(
      ["backend", "add", "corp", "--adapter", "signed", "--set", "base_url=\(backend.url)/signed/api",
       "--set", "app_id=\(Self.appID)", "--set", "ver=1.0", "--secret-stdin", "private_key"],
      stdin: Self.privateKey + "\n")
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
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let backend = try TestBackend(arguments: ["--hmac-time-zone", "+08:00"])
    // md5-hmac needs hmac_key: --secret-stdin gives it without a terminal.
    try sandbox.ok(
      ["backend", "add", "md5h", "--adapter", "plain", "--set", "base_url=\(backend.url)/plain/md5-hmac",
       "--set", "encoding=md5-hmac", "--secret-stdin", "hmac_key"],
      stdin: "qianqian\n")
    try sandbox.ok(
      ["backend", "add", "get", "--adapter", "plain", "--set", "base_url=\(backend.url)/plain/base64",
       "--set", "encoding=base64", "--set", "method=GET", "--set", "allow_insecure_transport=true"])
    try sandbox.ok(
      ["backend", "add", "hm", "--adapter", "hmac", "--set", "base_url=\(backend.url)/hmac",
       "--set", "time_zone=+08:00", "--secret-stdin", "hmac_key"],
      stdin: "qianqian\n")
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
    let sandbox = try Sandbox()
    defer { sandbox.close() }
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
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    try sandbox.addBackend("corp")
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

  @Test func aThirdPartyCAdapterLoadsAndLogsIn() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let backend = try TestBackend()
    let directory = try userAdapters(sandbox)
    try CAdapterCompiler.build("example.c", name: "example", into: directory)
    #expect(try sandbox.ok(["adapters"]).standardOutput.contains("example 1.0.0  ABI 1.1  \(directory)/example.so"))
    try sandbox.ok(["backend", "add", "ex", "--adapter", "example", "--set", "base_url=\(backend.url)/plain/plain"])
    // A proxy in the environment is never used for loopback (this one would refuse).
    let tested = try sandbox.ok(
      ["backend", "test", "ex", "carol", "--password-stdin"], stdin: "secret3\n",
      environment: ["http_proxy": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"])
    #expect(tested.standardError.contains("carol@ex: logged in through adapter example (userId 1003)"))
  }

  @Test func refusedAdaptersAreReportedAndTheOthersKeepWorking() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let directory = try userAdapters(sandbox)
    let path = try CAdapterCompiler.build("example.c", name: "example", into: directory)
    try sandbox.ok(["backend", "add", "ex", "--adapter", "example", "--set", "base_url=http://127.0.0.1:9"])
    chmod(path, 0o666)

    let listed = try sandbox.ok(["adapters"])
    #expect(listed.standardOutput.contains("example  \(path)\n  refused: writable by group or others (mode 0666); run: chmod go-w \(path)"), "\(listed)")
    #expect(listed.standardOutput.contains("signed 1.0.0"))
    #expect(listed.standardError == "1 adapter refused; the others work\n")

    let tested = try sandbox.run(["backend", "test", "ex", "alice", "--password-stdin"], stdin: "pw\n")
    #expect(tested.status == 9)
    #expect(tested.standardError == "accounts: adapter \(path) refused: writable by group or others (mode 0666); run: chmod go-w \(path)\n")
    let shown = try sandbox.run(["backend", "show", "ex"])
    #expect(shown.status == 9 && shown.standardOutput.contains("base_url"), "show still shows the settings: \(shown)")
  }

  @Test func aHostileAdapterCannotHangTheCommand() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let directory = try userAdapters(sandbox)
    try CAdapterCompiler.hostile("MODE_SPIN", name: "spin", into: directory)
    try CAdapterCompiler.hostile("MODE_LOOP", name: "loop", into: directory)
    let fast = ["ACCOUNTS_NETWORK_TIMEOUT": "1"]
    let spin = try sandbox.run(["backend", "add", "s", "--adapter", "spin"], environment: fast, timeout: 20)
    #expect(spin.status == 9)
    #expect(spin.standardError == "accounts: adapter spin did not answer within 1 s; it may be stuck\n")
    #expect(spin.seconds < 10)
    let loop = try sandbox.run(["backend", "add", "l", "--adapter", "loop"], environment: fast, timeout: 20)
    #expect(loop.status == 9)
    #expect(loop.standardError.contains("asked for the network while checking settings"))
    #expect(try sandbox.ok(["backend", "list", "--json"]).standardOutput == "[]\n")
  }

  @Test func adapterPathsWithEscapesNeverReachTheTerminal() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let directory = sandbox.keyring.root + "/ad\u{1B}[41m"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    chmod(directory, 0o755)
    try FileManager.default.copyItem(atPath: PackagePaths.products.appendingPathComponent("libplain.so").path, toPath: directory + "/plain.so")
    FileManager.default.createFile(atPath: directory + "/x\u{1B}]0;PWNED\u{7}.so", contents: Data())
    for arguments in [["adapters"], ["adapters", "plain"], ["doctor"]] {
      let result = try sandbox.run(arguments, environment: ["ACCOUNTS_ADAPTER_PATH": directory])
      let bytes = Array((result.standardOutput + result.standardError).utf8)
      #expect(!bytes.contains(0x1B) && !bytes.contains(0x07), "\(arguments): \(result)")
      #expect(result.standardOutput.contains("ad\\u{1b}[41m"), "\(arguments): \(result)")
    }
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

  @Test func aNonASCIIHostIsRefusedNamingItsASCIIForm() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let result = try sandbox.run(["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=https://bücher.example/api"])
    #expect(result.status == 2, "\(result)")
    #expect(
      result.standardError.hasPrefix(
        "accounts: backend corp: base_url has a non-ASCII host 'bücher.example'; "
          + "write it in its ASCII (punycode) form: https://xn--bcher-kva.example/api"), "\(result)")
    #expect(try sandbox.ok(["backend", "list", "--json"]).standardOutput == "[]\n")
  }

  /// A secret setting is read from the keyring only: one written into config.json by hand is
  /// never used in its place.
  @Test func aSecretSettingIsNeverReadFromConfigJSON() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let backend = try TestBackend()
    let key = "170ib799dd511e7b66000163e033322"
    try sandbox.ok(
      ["backend", "add", "corp", "--adapter", "signed", "--set", "base_url=\(backend.url)/signed/api",
       "--set", "app_id=\(key)", "--set", "ver=1.0", "--secret-stdin", "private_key"],
      stdin: key + "\n")
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
