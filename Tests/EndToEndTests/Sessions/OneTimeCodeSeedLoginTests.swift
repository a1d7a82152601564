import Foundation
import TestSupport
import Testing

/// Logins with a kept TOTP seed (issue 18): nobody types a code. With the seed stored by `otp
/// set`, a login off a terminal, `login --stale` and `exec --refresh` send the current code
/// themselves, and the real test backend (a TOTP user) accepts it.
@Suite(.blocking) struct OneTimeCodeSeedLoginTests {
  static let seed = OneTimeCodeLoginTests.seed

  /// The codes the backend accepts now (±1 period), computed with Python, not with our code.
  static func acceptedCodes() throws -> Set<String> {
    try Set((-1...2).map { try OneTimeCodeLoginTests.code(periods: $0) })
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

  @Test func withTheSeedKeptALoginOffATerminalSendsTheCodeOnEveryAdapter() throws {
    let (sandbox, backend) = try OneTimeCodeLoginTests().world()
    defer { sandbox.close() }
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
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    let backend = try TestBackend(arguments: ["--otp-user", "alice:\(Self.seed)", "--token-lifetime", "3"])
    defer { backend.stop() }
    try sandbox.ok([
      "backend", "add", "corp", "--adapter", "plain", "--set", "base_url=\(backend.url)/plain/plain",
      "--set", "allow_insecure_transport=true", "--set", "check_path=check", "--set", "otp_field=otp",
    ])
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "123456\n")
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
