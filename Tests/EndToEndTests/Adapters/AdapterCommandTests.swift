import Foundation
import TestSupport
import Testing

/// `accounts adapters` from the outside: the built-in adapters and C adapters built in the test,
/// listed with their settings, refused with the reason and the fix, never hanging the command,
/// and printed harmlessly whatever their paths hold. Backends on them: BackendCommandTests.
@Suite(.blocking) struct AdapterCommandTests {
  @Test func adaptersListsTheBuiltInsWithTheirSettings() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let adapters = try #require(try sandbox.json(["adapters", "--json"]) as? [[String: Any]])
    #expect(adapters.compactMap { $0["name"] as? String } == ["hmac", "oauth2", "plain", "signed"])
    for adapter in adapters {
      #expect(adapter["abi"] as? String == "1.3")
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
    #expect(try sandbox.ok(["__complete", "adapters"]).standardOutput == "hmac\noauth2\nplain\nsigned\n")
    let missing = try sandbox.run(["adapters", "signd"])
    #expect(missing.status == 9)
    #expect(missing.standardError.contains("no adapter 'signd'") && missing.standardError.contains("did you mean 'signed'?"))
  }

  @Test func aThirdPartyCAdapterLoadsAndLogsIn() throws {
    let world = try Fixture().serving()
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    let directory = try sandbox.userAdapterDirectory()
    try CAdapterCompiler.build("example.c", name: "example", into: directory)
    #expect(try sandbox.ok(["adapters"]).standardOutput.contains("example 1.0.0  ABI 1.3  \(directory)/example.so"))
    try sandbox.addBackend("ex", adapter: "example", settings: ["base_url=\(backend.url)/plain/plain"])
    // A proxy in the environment is never used for loopback (this one would refuse).
    let tested = try sandbox.ok(
      ["backend", "test", "ex", "carol", "--password-stdin"], stdin: "secret3\n",
      environment: ["http_proxy": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"])
    #expect(tested.standardError.contains("carol@ex: logged in through adapter example (userId 1003)"))
  }

  @Test func refusedAdaptersAreReportedAndTheOthersKeepWorking() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let directory = try sandbox.userAdapterDirectory()
    let path = try CAdapterCompiler.build("example.c", name: "example", into: directory)
    try sandbox.addBackend("ex", adapter: "example", settings: ["base_url=http://127.0.0.1:9"])
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
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let directory = try sandbox.userAdapterDirectory()
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

}
