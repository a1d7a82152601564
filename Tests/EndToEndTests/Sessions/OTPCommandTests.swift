import Foundation
import TestSupport
import Testing

/// `accounts otp` and `otp set` with the built binary and a real keyring: the RFC 6238 appendix
/// B vectors through libgcrypt's HMAC, checked against oathtool; the seed in the keyring only;
/// removal; a killed `otp set`; the no-echo prompt.
@Suite(.blocking) struct OTPCommandTests {
  /// The RFC's ASCII seeds ("1234567890" repeated to 20, 32 and 64 bytes) in base32.
  static let seeds = [
    "SHA1": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
    "SHA256": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA====",
    "SHA512":
      "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNA=",
  ]

  static let appendixB: [(time: Int64, codes: [String: String])] = [
    (59, ["SHA1": "94287082", "SHA256": "46119246", "SHA512": "90693936"]),
    (1_111_111_109, ["SHA1": "07081804", "SHA256": "68084774", "SHA512": "25091201"]),
    (1_111_111_111, ["SHA1": "14050471", "SHA256": "67062674", "SHA512": "99943326"]),
    (1_234_567_890, ["SHA1": "89005924", "SHA256": "91819424", "SHA512": "93441116"]),
    (2_000_000_000, ["SHA1": "69279037", "SHA256": "90698825", "SHA512": "38618901"]),
    (20_000_000_000, ["SHA1": "65353130", "SHA256": "77737706", "SHA512": "47863826"]),
  ]

  /// oathtool's code for `seed` at `time`: the independent reference.
  func oathtool(_ algorithm: String, _ seed: String, at time: Int64) throws -> String {
    let result = try runProcess(
      "/usr/bin/oathtool", ["--totp=\(algorithm.lowercased())", "-b", "-d", "8", "-N", "@\(time)", seed],
      environment: ["PATH": "/usr/bin:/bin", "TZ": "UTC"], timeout: 20)
    #expect(result.status == 0, "\(result)")
    return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test(arguments: ["SHA1", "SHA256", "SHA512"])
  func codesAreRFC6238sAndOathtoolsEveryListedTime(algorithm: String) throws {
    let world = try Fixture().addingBackend("corp").saving("alice")
    defer { world.close() }
    let sandbox = world.sandbox
    let seed = Self.seeds[algorithm]!
    let uri = "otpauth://totp/corp:alice?secret=\(seed)&issuer=corp&algorithm=\(algorithm)&digits=8"
    let set = try sandbox.ok(["otp", "set", "alice"], stdin: uri + "\n")
    #expect(set.standardError == "stored the one-time code seed of alice@corp (\(algorithm), 8 digits, 30 s)\n")
    #expect(!set.standardOutput.contains(seed) && !set.standardError.contains(seed))
    for (time, codes) in Self.appendixB {
      let code = try sandbox.ok(["otp", "alice", "--at", String(time)])
      #expect(code.standardOutput == codes[algorithm]! + "\n", "\(algorithm) at \(time)")
      #expect(code.standardError == "", "no seconds left for another moment, nor off a terminal")
      #expect(try oathtool(algorithm, seed, at: time) == codes[algorithm]!, "oathtool at \(time)")
    }
    let json = try #require(
      try sandbox.json(["otp", "code", "--at", "59", "--account", "alice", "--json"]) as? [String: Any])
    #expect(json["account"] as? String == "alice@corp")
    #expect(json["code"] as? String == Self.appendixB[0].codes[algorithm])
    #expect(json["period"] as? Int == 30)
    #expect(json["expires_at"] as? String == "1970-01-01T00:01:00Z")
  }

  @Test(arguments: SecretServiceProvider.providerBlind)
  func theSeedIsInTheKeyringOnlyAndGoesWithRemoveOrRemoveAccount(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp").saving("alice")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["otp", "set", "alice"], stdin: "jbsw y3dp ehpk 3pxp\n")
    let items = try sandbox.allKeyringItems()
    #expect(
      items == [
        KeyringItem(
          backend: "corp", account: "alice", kind: "otp",
          secret: "otpauth://totp/alice@corp?secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30")
      ])
    #expect(filesContaining("JBSWY3DPEHPK3PXP", under: sandbox.keyring.root).allSatisfy { $0.hasSuffix(".keyring") || $0.hasSuffix(".kdbx") },
      "only the keyring's own file may hold it")
    let index = try #require(try sandbox.indexJSON()["accounts"] as? [[String: Any]])
    #expect(index.first?["otp"] as? Bool == true)
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.first?["otp"] as? Bool == true)
    #expect(try sandbox.ok(["list"]).standardOutput.contains("alice    corp     otp"))
    let now = try sandbox.ok(["otp", "alice"]).standardOutput
    #expect(now.count == 7 && now.dropLast().allSatisfy(\.isNumber), "\(now)")
    #expect(try sandbox.invariantViolations() == [])

    let removed = try sandbox.ok(["otp", "set", "alice", "--remove"])
    #expect(removed.standardError == "removed the one-time code seed of alice@corp\n")
    #expect(try sandbox.allKeyringItems() == [])
    #expect(try sandbox.invariantViolations() == [])
    let again = try sandbox.ok(["otp", "set", "alice", "--remove"])
    #expect(again.standardError == "alice@corp has no one-time code seed: nothing to remove\n")
    let none = try sandbox.run(["otp", "alice"])
    #expect(none.status == 3)
    #expect(
      none.standardError == "accounts: no one-time code seed for alice@corp; store one with `accounts otp set alice`\n")

    try sandbox.ok(["otp", "set", "alice"], stdin: "JBSWY3DPEHPK3PXP\n")
    try sandbox.ok(["remove", "alice@corp"])
    #expect(try sandbox.allKeyringItems() == [])
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test(arguments: [
    ("JBSW1Y3DPEHPK3PXP", "not a TOTP seed: character 5 of the seed is not base32 (A-Z, 2-7)"),
    ("otpauth://hotp/corp:alice?secret=JBSWY3DPEHPK3PXP&counter=4", "it is an HOTP (counter) seed"),
    ("otpauth://totp/corp:alice?secret=JBSWY3DPEHPK3PXP&digits=9", "its digits are not 6, 7 or 8"),
    ("", "no seed on stdin"),
    ("JBSWY3DP\u{0}EHPK3PXP", "the seed contains a NUL byte, which no seed can hold"),
    ("GEZDGNBVGY3TQOI=", "its key is shorter than 10 bytes (16 base32 characters)"),
  ])
  func aBadSeedIsRefusedWithoutEchoingIt(seed: String, message: String) throws {
    let world = try Fixture().addingBackend("corp").saving("alice")
    defer { world.close() }
    let sandbox = world.sandbox
    let result = try sandbox.run(["otp", "set", "alice"], stdin: seed + "\n")
    #expect(result.status == 2, "\(result)")
    #expect(result.standardError.hasPrefix("accounts: ") && result.standardError.contains(message), "\(result)")
    #expect(result.standardError.split(separator: "\n").count == 1)
    #expect(!result.standardError.contains("JBSW"), "the seed is never echoed")
    #expect(try sandbox.allKeyringItems() == [])
    #expect((try sandbox.indexJSON()["accounts"] as? [[String: Any]])?.first?["otp"] == nil)
  }

  /// With nothing on stdin, the example pipes a seed, not a password.
  @Test func anEmptyStdinSaysToPipeASeed() throws {
    let world = try Fixture().addingBackend("corp").saving("alice")
    defer { world.close() }
    let sandbox = world.sandbox
    let result = try sandbox.run(["otp", "set", "alice"], stdin: "")
    #expect(result.status == 2, "\(result)")
    #expect(result.standardError.contains(#"printf '%s\n' "$SEED" | accounts"#), "\(result)")
    #expect(!result.standardError.contains("PASSWORD"), "\(result)")
  }

  /// A seed typed on the command line is refused without being repeated (CI logs keep stderr).
  @Test func aSeedOnTheCommandLineIsNotEchoed() throws {
    let world = try Fixture().addingBackend("corp").saving("alice")
    defer { world.close() }
    let sandbox = world.sandbox
    let result = try sandbox.run(["otp", "set", "alice", "JBSWY3DPEHPK3PXP"])
    #expect(result.status == 2, "\(result)")
    #expect(
      result.standardError.contains(
        "`accounts otp set` takes one account; a seed is read from stdin or a prompt, never from the command line"),
      "\(result)")
    #expect(!result.standardError.contains("JBSW"), "\(result)")
    #expect(try sandbox.allKeyringItems() == [])
  }

  /// `otp set` killed between storing the seed and claiming it, then `--remove`: the account is
  /// settled first, so the seed nothing claims is gone, not left in the keyring.
  @Test func aRemoveAfterAKilledSetLeavesNoSeed() throws {
    let world = try Fixture().addingBackend("corp").saving("alice")
    defer { world.close() }
    let sandbox = world.sandbox
    let setter = try BackgroundAccounts(
      sandbox, ["otp", "set", "alice"], stdin: "JBSWY3DPEHPK3PXP\n",
      environment: Interposer.environment(stop: "before:2"))
    defer { if setter.process.isRunning { setter.kill() } }
    try setter.waitUntilStopped()
    setter.kill()
    #expect(try sandbox.allKeyringItems().count == 1, "the seed was stored, the claim not written")
    let removed = try sandbox.run(["otp", "set", "alice", "--remove"])
    #expect(removed.status == 0, "\(removed)")
    #expect(try sandbox.allKeyringItems() == [], "\(removed)")
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.indexJSON()["unsettled"] == nil)
  }

  /// `otp set` writes the index twice (the intent, then the claim): killed in between, the
  /// seed that no account claims is never served, and the next change settles it.
  @Test func aKilledSetLeavesTheBookConsistent() throws {
    let world = try Fixture().addingBackend("corp").saving("alice")
    defer { world.close() }
    let sandbox = world.sandbox
    let setter = try BackgroundAccounts(
      sandbox, ["otp", "set", "alice"], stdin: "JBSWY3DPEHPK3PXP\n",
      environment: Interposer.environment(stop: "before:2"))
    defer { if setter.process.isRunning { setter.kill() } }
    try setter.waitUntilStopped()
    setter.kill()
    #expect(try sandbox.indexJSON()["unsettled"] as? [String] == ["alice@corp"])
    #expect(
      try sandbox.invariantViolations() == [
        "the keyring holds an otp seed of alice@corp, which the index does not claim"
      ])
    #expect(try sandbox.run(["otp", "alice"]).status == 3, "an interrupted command's seed is not served")
    try sandbox.ok(["otp", "set", "alice"], stdin: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n")
    #expect(try sandbox.invariantViolations() == [])
    #expect(try sandbox.indexJSON()["unsettled"] == nil)
    #expect(try sandbox.ok(["otp", "alice", "--at", "59"]).standardOutput == "287082\n")

    // Killed before it records a removal: the claim whose item is gone is dropped by the next read.
    let remover = try BackgroundAccounts(
      sandbox, ["otp", "set", "alice", "--remove"], environment: Interposer.environment(stop: "before:2"))
    defer { if remover.process.isRunning { remover.kill() } }
    try remover.waitUntilStopped()
    remover.kill()
    #expect(
      try sandbox.invariantViolations() == ["the index claims an otp seed of alice@corp, but the keyring has none"])
    let gone = try sandbox.run(["otp", "alice"])
    #expect(gone.status == 3, "\(gone)")
    #expect(try sandbox.invariantViolations() == [])
    #expect((try sandbox.indexJSON()["accounts"] as? [[String: Any]])?.first?["otp"] == nil)
  }

  @Test func theSeedIsAskedWithoutEchoOnATerminal() throws {
    let world = try Fixture().addingBackend("corp").saving("alice")
    defer { world.close() }
    let sandbox = world.sandbox
    let seed = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    let result = try runInTerminal(
      PackagePaths.accounts, ["otp", "set", "alice"], environment: sandbox.environment,
      steps: [("One-time code seed for alice@corp (otpauth:// URI or base32): ", seed + "\r\n")])
    #expect(result.status == 0, "\(result)")
    #expect(!result.standardOutput.contains(seed), "echoed: \(result.standardOutput)")
    #expect(result.standardOutput.contains("stored the one-time code seed of alice@corp (SHA1, 6 digits, 30 s)"))
    #expect(try sandbox.ok(["otp", "alice", "--at", "1111111109"]).standardOutput == "081804\n")
    // Ctrl-D at the prompt: the error starts a line of its own.
    let ended = try runInTerminal(
      PackagePaths.accounts, ["otp", "set", "alice"], environment: sandbox.environment,
      steps: [("One-time code seed for alice@corp (otpauth:// URI or base32): ", "\u{4}")])
    #expect(ended.status == 2, "\(ended)")
    #expect(ended.standardOutput.contains("(otpauth:// URI or base32): \r\naccounts: no seed given"), "\(ended)")
    let shown = try runInTerminal(PackagePaths.accounts, ["otp", "alice"], environment: sandbox.environment, steps: [])
    #expect(shown.status == 0, "\(shown)")
    #expect(
      shown.standardOutput.range(of: #"^\d{6}\r?\n\(([1-9]|[12][0-9]|30) s left\)"#, options: .regularExpression)
        != nil, "\(shown)")
  }
}
