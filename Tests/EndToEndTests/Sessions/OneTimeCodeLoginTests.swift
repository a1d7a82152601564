import Foundation
import TestSupport
import Testing

/// Logins with a one-time code (issue 18): a TOTP-protected user of the test backend, on plain,
/// hmac and signed backends that set `otp_field` / `otp_param` and on the C example adapter,
/// logged in through the real binary, keyring and backend. The code is computed here, with
/// Python's hmac, independently of the Swift code.
@Suite(.blocking) struct OneTimeCodeLoginTests {
  static let seed = "JBSWY3DPEHPK3PXP"
  static let appID = "170ib799dd511e7b66000163e033322"

  /// The RFC 6238 code (HMAC-SHA1, 6 digits, 30 s) of `seed` now, `periods` periods away.
  static func code(periods: Int = 0) throws -> String {
    let program = """
      import base64, hashlib, hmac, struct, sys, time
      key = base64.b32decode(sys.argv[1])
      mac = hmac.new(key, struct.pack(">Q", int(time.time()) // 30 + int(sys.argv[2])), hashlib.sha1).digest()
      offset = mac[-1] & 15
      print("%06d" % ((struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7fffffff) % 1000000))
      """
    let result = try runProcess(
      "/usr/bin/python3", ["-c", program, seed, String(periods)], environment: ["PATH": "/usr/bin:/bin"], timeout: 20)
    let code = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    guard result.status == 0, code.count == 6 else { throw CodeError(output: result.description) }
    return code
  }

  struct CodeError: Error { let output: String }

  /// A code that is none of the three the backend accepts now.
  static func wrongCode() throws -> String {
    let accepted = try Set((-1...2).map { try code(periods: $0) })
    return (0..<1_000_000).lazy.map { String(format: "%06d", ($0 * 7919 + 13) % 1_000_000) }
      .first { !accepted.contains($0) }!
  }

  /// A sandbox with backends p (plain, md5), h (hmac), s (signed) and x (the C example built
  /// against this header) that send the code, and the test backend with alice as a TOTP user.
  func world(codeSettings: Bool = true) throws -> (Sandbox, TestBackend) {
    let sandbox = try Sandbox()
    let backend = try TestBackend(arguments: ["--otp-user", "alice:\(Self.seed)"])
    let field = codeSettings ? ["--set", "otp_field=otp"] : []
    try sandbox.ok(
      ["backend", "add", "p", "--adapter", "plain", "--set", "base_url=\(backend.url)/plain/md5",
       "--set", "encoding=md5"] + field)
    try sandbox.ok(
      ["backend", "add", "h", "--adapter", "hmac", "--set", "base_url=\(backend.url)/hmac", "--set", "time_zone=UTC",
       "--secret-stdin", "hmac_key"] + field, stdin: "qianqian\n")
    try sandbox.ok(
      ["backend", "add", "s", "--adapter", "signed", "--set", "base_url=\(backend.url)/signed/api",
       "--set", "app_id=\(Self.appID)", "--set", "ver=1.0", "--secret-stdin", "private_key"]
        + (codeSettings ? ["--set", "otp_param=otp"] : []), stdin: Self.appID + "\n")
    let directory = try sandbox.userAdapterDirectory()
    try CAdapterCompiler.build("example.c", name: "example", into: directory)
    try sandbox.ok(
      ["backend", "add", "x", "--adapter", "example", "--set", "base_url=\(backend.url)/plain/plain"] + field)
    return (sandbox, backend)
  }

  func terminal(
    _ sandbox: Sandbox, _ arguments: [String], _ steps: [(expect: String, type: String)]
  ) throws -> ProcessResult {
    try runInTerminal(PackagePaths.accounts, arguments, environment: sandbox.environment, steps: steps)
  }

  @Test func onATerminalTheCodeIsAskedAndSentWhereTheBackendSays() throws {
    let (sandbox, backend) = try world()
    defer { sandbox.close() }
    for name in ["p", "h", "s", "x"] {
      let id = "alice@\(name)"
      let code = try Self.code()
      let login = try terminal(
        sandbox, ["login", id], [("Password for \(id): ", "123456\n"), ("one-time code for \(id): ", code + "\n")])
      #expect(login.status == 0, "\(name): \(login)")
      #expect(login.standardOutput.contains("\(id): logged in"), "\(name): \(login)")
      #expect(!login.standardOutput.contains(code), "\(name): the code is not echoed")
      let sent = try #require(try backend.requests().last)
      let fields = (sent["form"] as? [String: Any] ?? [:]).merging(
        Dictionary(uniqueKeysWithValues: (sent["query"] as? String ?? "").split(separator: "&").compactMap { pair in
          let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
          return parts.count == 2 ? (parts[0], parts[1] as Any) : nil
        })) { first, _ in first }
      #expect(fields["otp"] as? String == code, "\(name): \(sent)")

      // A wrong code is a rejected login, asked once, never again.
      let wrong = try terminal(
        sandbox, ["login", id],
        [("Password for \(id): ", "123456\n"), ("one-time code for \(id): ", try Self.wrongCode() + "\n")])
      #expect(wrong.status == 4, "\(name): \(wrong)")
      #expect(wrong.standardOutput.components(separatedBy: "one-time code for").count == 2, "\(name): asked once")
    }
    // An answer that is no code: exit 2, the backend never asked.
    let before = try backend.requests().count
    let typo = try terminal(
      sandbox, ["login", "alice@p"],
      [("Password for alice@p: ", "123456\n"), ("one-time code for alice@p: ", "12a456\n")])
    #expect(typo.status == 2, "\(typo)")
    #expect(typo.standardOutput.contains("not a one-time code"), "\(typo)")
    #expect(try backend.requests().count == before)
    // A rejected code forgets nothing: the remembered password stays.
    try sandbox.ok(["passwd", "alice@p", "--password-stdin"], stdin: "123456\n")
    let rejected = try terminal(
      sandbox, ["login", "alice@p"], [("one-time code for alice@p: ", try Self.wrongCode() + "\n")])
    #expect(rejected.status == 4, "\(rejected)")
    #expect(rejected.standardOutput.contains("check the password, and type the current code"), "\(rejected)")
    #expect(!rejected.standardOutput.contains("user name"), "\(rejected)")
    #expect(try sandbox.ok(["password", "alice@p"]).standardOutput == "123456\n")
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  @Test func offATerminalTheLoginStopsWithExit3AndSaysHowToKeepTheSeed() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let backend = try TestBackend(arguments: ["--otp-user", "alice:\(Self.seed)"])
    try sandbox.ok(
      ["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=\(backend.url)/plain/md5",
       "--set", "encoding=md5", "--set", "otp_field=otp"])
    try sandbox.ok(["add", "alice", "--backend", "corp", "--remember", "--password-stdin"], stdin: "123456\n")
    let piped = try sandbox.run(["login", "alice", "--password-stdin"], stdin: "123456\n")
    #expect(piped.status == 3, "\(piped)")
    #expect(
      piped.standardError.hasPrefix("accounts: alice@corp needs a one-time code: `accounts otp set alice`"), "\(piped)")
    // `status` and `login --stale` never prompt: with the remembered password, the same answer.
    let stale = try sandbox.run(["login", "--stale"])
    #expect(stale.status == 3, "\(stale)")
    #expect(stale.standardError.contains("alice@corp: failed: needs a one-time code"), "named once: \(stale)")
    #expect(try backend.requests().isEmpty, "no login without a code reached the backend")
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  @Test func aBackendWithoutTheCodeSettingNeverAsks() throws {
    let (sandbox, backend) = try world(codeSettings: false)
    defer { sandbox.close() }
    for name in ["p", "h", "s", "x"] {
      let bob = try terminal(sandbox, ["login", "bob@\(name)"], [("Password for bob@\(name): ", "hunter2\n")])
      #expect(bob.status == 0, "\(name): \(bob)")
      #expect(!bob.standardOutput.contains("one-time code"), "\(name): \(bob)")
      // The backend wants alice's code, which nobody sends: a rejected login, not a question.
      let alice = try sandbox.run(["login", "alice@\(name)", "--password-stdin"], stdin: "123456\n")
      #expect(alice.status == 4, "\(name): \(alice)")
    }
    #expect(try backend.requests().allSatisfy { ($0["form"] as? [String: Any])?["otp"] == nil })
  }

  @Test func aVersion1_0AdapterStillLoadsAndLogsInWithoutACode() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let backend = try TestBackend()
    let directory = try sandbox.userAdapterDirectory()
    try CAdapterCompiler.build("example.c", name: "example", header: .version1_0, into: directory)
    // Declares ABI 1.0 with bit 0x8 on otp_field, which meant nothing in 1.0.
    try CAdapterCompiler.hostile("MODE_OLD_CODE_BIT", name: "oldbit", into: directory)
    let listed = try sandbox.ok(["adapters"]).standardOutput
    #expect(listed.contains("example 1.0.0  ABI 1.0  \(directory)/example.so"), "\(listed)")
    #expect(listed.contains("oldbit 0.0.1  ABI 1.0"), "\(listed)")
    try sandbox.ok(["backend", "add", "old", "--adapter", "example", "--set", "base_url=\(backend.url)/plain/plain"])
    try sandbox.ok(["login", "bob@old", "--password-stdin"], stdin: "hunter2\n")
    #expect(try sandbox.ok(["token", "bob@old"]).standardOutput.count == 33)
    // The host asks for no code for a 1.0 adapter, and hands it none.
    try sandbox.ok(["backend", "add", "bit", "--adapter", "oldbit", "--set", "otp_field=otp"])
    let login = try sandbox.ok(["login", "bob@bit", "--password-stdin", "--json"], stdin: "pw\n")
    let session = try #require(
      try JSONSerialization.jsonObject(with: Data(login.standardOutput.utf8)) as? [String: Any], "\(login)")
    #expect((session["session"] as? [String: Any])?["code"] as? String == "absent", "\(session)")
  }
}
