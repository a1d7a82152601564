import Foundation
import TestSupport
import Testing

/// Logins with a one-time code: a TOTP-protected user of the test backend, on plain, hmac and
/// signed backends that set `otp_field` / `otp_param` and on the C example adapter, logged in
/// through the real binary, keyring and backend. The code is typed at a terminal, or, with the
/// seed kept by `otp set`, sent by the login itself: off a terminal, in `login --stale` and in
/// `exec --refresh`. The code is computed here, with Python's hmac, independently of the Swift
/// code.
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

  /// The codes the backend accepts now (±1 period), computed with Python, not with our code.
  static func acceptedCodes() throws -> Set<String> {
    try Set((-1...2).map { try code(periods: $0) })
  }

  /// The one-time code each login request carried, in order.
  static func sentCodes(_ backend: TestBackend) throws -> [String] {
    try backend.requests().filter { ($0["path"] as? String)?.hasSuffix("/login") == true }.compactMap { request in
      let form = request["form"] as? [String: Any] ?? [:]
      if let code = form["otp"] as? String { return code }
      let query = (request["query"] as? String ?? "").split(separator: "&")
      return query.first { $0.hasPrefix("otp=") }.map { String($0.dropFirst(4)) }
    }
  }

  @Test func onATerminalTheCodeIsAskedAndSentWhereTheBackendSays() throws {
    let world = try Fixture.oneTimeCodeBackends()
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    for name in ["p", "h", "s", "x"] {
      let id = "alice@\(name)"
      let code = try Self.code()
      let login = try sandbox.terminal(
        ["login", id], [("Password for \(id): ", "123456\n"), ("one-time code for \(id): ", code + "\n")])
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
      let wrong = try sandbox.terminal(
        ["login", id],
        [("Password for \(id): ", "123456\n"), ("one-time code for \(id): ", try Self.wrongCode() + "\n")])
      #expect(wrong.status == 4, "\(name): \(wrong)")
      #expect(wrong.standardOutput.components(separatedBy: "one-time code for").count == 2, "\(name): asked once")
    }
    // An answer that is no code: exit 2, the backend never asked.
    let before = try backend.requests().count
    let typo = try sandbox.terminal(
      ["login", "alice@p"],
      [("Password for alice@p: ", "123456\n"), ("one-time code for alice@p: ", "12a456\n")])
    #expect(typo.status == 2, "\(typo)")
    #expect(typo.standardOutput.contains("not a one-time code"), "\(typo)")
    #expect(try backend.requests().count == before)
    // A rejected code forgets nothing: the remembered password stays.
    try sandbox.ok(["passwd", "alice@p", "--password-stdin"], stdin: "123456\n")
    let rejected = try sandbox.terminal(
      ["login", "alice@p"], [("one-time code for alice@p: ", try Self.wrongCode() + "\n")])
    #expect(rejected.status == 4, "\(rejected)")
    #expect(rejected.standardOutput.contains("check the password, and type the current code"), "\(rejected)")
    #expect(!rejected.standardOutput.contains("user name"), "\(rejected)")
    #expect(try sandbox.ok(["password", "alice@p"]).standardOutput == "123456\n")
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  @Test func offATerminalTheLoginStopsWithExit3AndSaysHowToKeepTheSeed() throws {
    let world = try Fixture().serving(arguments: ["--otp-user", "alice:\(Self.seed)"])
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    try world.addingBackend("corp", settings: ["base_url=\(backend.url)/plain/md5", "encoding=md5", "otp_field=otp"])
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
    let world = try Fixture.oneTimeCodeBackends(codeSettings: false)
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    for name in ["p", "h", "s", "x"] {
      let bob = try sandbox.terminal(["login", "bob@\(name)"], [("Password for bob@\(name): ", "hunter2\n")])
      #expect(bob.status == 0, "\(name): \(bob)")
      #expect(!bob.standardOutput.contains("one-time code"), "\(name): \(bob)")
      // The backend wants alice's code, which nobody sends: a rejected login, not a question.
      let alice = try sandbox.run(["login", "alice@\(name)", "--password-stdin"], stdin: "123456\n")
      #expect(alice.status == 4, "\(name): \(alice)")
    }
    #expect(try backend.requests().allSatisfy { ($0["form"] as? [String: Any])?["otp"] == nil })
  }

  @Test func aVersion1_0AdapterStillLoadsAndLogsInWithoutACode() throws {
    let world = try Fixture().serving()
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    let directory = try sandbox.userAdapterDirectory()
    try CAdapterCompiler.build("example.c", name: "example", header: .version1_0, into: directory)
    // Declares ABI 1.0 with bit 0x8 on otp_field, which meant nothing in 1.0.
    try CAdapterCompiler.hostile("MODE_OLD_CODE_BIT", name: "oldbit", into: directory)
    let listed = try sandbox.ok(["adapters"]).standardOutput
    #expect(listed.contains("example 1.0.0  ABI 1.0  \(directory)/example.so"), "\(listed)")
    #expect(listed.contains("oldbit 0.0.1  ABI 1.0"), "\(listed)")
    try sandbox.addBackend("old", adapter: "example", settings: ["base_url=\(backend.url)/plain/plain"])
    try sandbox.ok(["login", "bob@old", "--password-stdin"], stdin: "hunter2\n")
    #expect(try sandbox.ok(["token", "bob@old"]).standardOutput.count == 33)
    // The host asks for no code for a 1.0 adapter, and hands it none.
    try sandbox.addBackend("bit", adapter: "oldbit", settings: ["otp_field=otp"])
    let login = try sandbox.ok(["login", "bob@bit", "--password-stdin", "--json"], stdin: "pw\n")
    let session = try #require(
      try JSONSerialization.jsonObject(with: Data(login.standardOutput.utf8)) as? [String: Any], "\(login)")
    #expect((session["session"] as? [String: Any])?["code"] as? String == "absent", "\(session)")
  }

  @Test func withTheSeedKeptALoginOffATerminalSendsTheCodeOnEveryAdapter() throws {
    let world = try Fixture.oneTimeCodeBackends()
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    for name in ["p", "h", "s"] {
      let id = "alice@\(name)"
      try sandbox.ok(["add", id, "--remember", "--password-stdin"], stdin: "123456\n")
      // Before the seed, off a terminal: exit 3 naming `otp set`.
      let refused = try sandbox.run(["login", id])
      #expect(refused.status == 3, "\(name): \(refused)")
      try sandbox.ok(["otp", "set", id], stdin: "otpauth://totp/corp:alice?secret=\(Self.seed)&issuer=corp\n")
      try backend.control("log/clear")
      let login = try sandbox.run(["login", id])
      #expect(login.status == 0, "\(name): \(login)")
      let sent = try Self.sentCodes(backend)
      #expect(sent.count == 1, "\(name): one login, one code: \(sent)")
      #expect(try Self.acceptedCodes().isSuperset(of: sent), "\(name): \(sent)")
      #expect(!login.standardOutput.contains(sent.first ?? "-") && !login.standardError.contains(sent.first ?? "-"))
    }
    // A wrong seed: the rejection says to check the seed and the clock, not "the user name".
    try sandbox.ok(["otp", "set", "alice@p"], stdin: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n")
    let wrong = try sandbox.run(["login", "alice@p"])
    #expect(wrong.status == 4, "\(wrong)")
    #expect(
      wrong.standardError.contains(
        "check the password, the TOTP seed (`accounts otp alice@p` against your authenticator) and this machine's clock"),
      "\(wrong)")
    try sandbox.ok(["otp", "set", "alice@p"], stdin: "\(Self.seed)\n")
    // login --stale never asks, and needs none asked: the seeds give the codes.
    let stale = try sandbox.run(["login", "--stale", "--within", "3h", "alice@p", "alice@h", "alice@s"])
    #expect(stale.status == 0, "\(stale)")
    #expect(stale.standardError.contains("logged in 3,"), "\(stale)")
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  @Test func execRefreshLogsInAgainWithTheCodeFromTheSeed() throws {
    let world = try Fixture().serving(tokenLifetime: 3, arguments: ["--otp-user", "alice:\(Self.seed)"])
      .addingServedBackend("corp", settings: ["check_path=check", "otp_field=otp"]).saving("alice", password: "123456")
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    try sandbox.ok(["otp", "set", "alice"], stdin: Self.seed + "\n")
    let script = RefreshTests.awaitNewToken + """

      awaitNewToken "$ACCOUNTS_TOKEN_FILE" "$ACCOUNTS_TOKEN" "$1"
      """
    let result = try sandbox.run(["exec", "alice", "--refresh", "--", "/bin/sh", "-c", script, "sh", backend.url])
    #expect(result.status == 0, "a renewed token the backend accepts: \(result)")
    let sent = try Self.sentCodes(backend)
    #expect(sent.count >= 2, "the first login and the renewal each sent a code: \(sent)")
    #expect(try Self.acceptedCodes().isSuperset(of: sent.suffix(1)), "\(sent)")
  }
}

extension Fixture {
  /// Backends p (plain, md5), h (hmac), s (signed) and x (the C example built against this
  /// header) on a test backend whose alice is a TOTP user; with `codeSettings`, each sends the
  /// code (otp_field, or signed's otp_param).
  static func oneTimeCodeBackends(codeSettings: Bool = true) throws -> Fixture {
    let world = try Fixture().serving(arguments: ["--otp-user", "alice:\(OneTimeCodeLoginTests.seed)"])
    let url = world.backend.url
    let field = codeSettings ? ["otp_field=otp"] : []
    let appID = OneTimeCodeLoginTests.appID
    try world.addingBackend("p", settings: ["base_url=\(url)/plain/md5", "encoding=md5"] + field)
      .addingBackend(
        "h", adapter: "hmac", settings: ["base_url=\(url)/hmac", "time_zone=UTC"] + field, secret: ("hmac_key", "qianqian"))
      .addingBackend(
        "s", adapter: "signed",
        settings: ["base_url=\(url)/signed/api", "app_id=\(appID)", "ver=1.0"] + (codeSettings ? ["otp_param=otp"] : []),
        secret: ("private_key", appID))
    try CAdapterCompiler.build("example.c", name: "example", into: try world.sandbox.userAdapterDirectory())
    return try world.addingBackend("x", adapter: "example", settings: ["base_url=\(url)/plain/plain"] + field)
  }
}
