import AccountsContract
import AccountsSystem
import CAccountsAdapter
import Foundation
import SecretMemory
import Testing
import TestSupport

@testable import AdapterHost

/// ABI 1.1's one-time code: the built-in adapters send it where `otp_field` / `otp_param` say
/// (the signed one under its signature), and nowhere when the setting is unset; the host reads
/// the ONE_TIME_CODE flag only from 1.1 descriptors, and a 1.0 adapter keeps loading.
@Suite(.blocking) struct OneTimeCodeFieldTests {
  let scratch: ScratchDirectory

  init() throws { scratch = try ScratchDirectory() }

  func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

  func loaded(_ adapter: String) throws -> LoadedAdapter {
    try AdapterLoader.load(PackagePaths.products.appendingPathComponent("lib\(adapter).so").path, name: adapter).get()
  }

  /// The outcome of a LOGIN of user/password 123456 with `code`, and the form fields it sent.
  func login(
    _ adapter: String, settings: [String: String], secrets: [String: String] = [:], code: String?
  ) throws -> (AdapterOutcome, [String: String]) {
    let transport = CannedTransport(body: #"{"userId": 1001, "token": "t0k3n", "expiresIn": 60}"#)
    let request = AdapterRequest(
      adapter: adapter, backend: "codes", settings: settings, user: "123456",
      operation: .login(password: secret("123456"), oneTimeCode: code.map(secret)), timeout: 10)
    let outcome = AdapterSessionRunner(adapter: try loaded(adapter), transport: transport, host: fixedHost).run(
      request, secretSettings: secrets.mapValues(secret))
    var fields: [String: String] = [:]
    for pair in String(decoding: transport.requests.first?.body ?? [], as: UTF8.self).split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding! }
      fields[parts[0]] = parts.count > 1 ? parts[1] : ""
    }
    return (outcome, fields)
  }

  static let signed = [
    "base_url": "https://api.example/api", "app_id": "170ib799dd511e7b66000163e033322", "plat": "iOS", "ver": "1.0",
  ]
  static let key = ["private_key": "170ib799dd511e7b66000163e033322"]

  @Test func theBuiltInAdaptersDeclareTheirCodeSettings() throws {
    for (adapter, setting) in [("plain", "otp_field"), ("hmac", "otp_field"), ("signed", "otp_param")] {
      let description = try loaded(adapter).description
      #expect(description.abiText == "1.3", "\(adapter)")
      let declared = try #require(description.setting(named: setting), "\(adapter)")
      #expect(declared.isOneTimeCode && declared.isOptional && !declared.isSecret, "\(adapter)")
      #expect(description.settings.filter(\.isOneTimeCode).map(\.name) == [setting], "\(adapter)")
      #expect(description.needsOneTimeCode(settings: [setting: "otp"]), "\(adapter)")
      #expect(!description.needsOneTimeCode(settings: [setting: ""]), "\(adapter): empty is unset")
      #expect(!description.needsOneTimeCode(settings: [:]), "\(adapter)")
    }
  }

  @Test func formLoginsSendTheCodeInTheirOTPField() throws {
    let plain = try login("plain", settings: ["base_url": "https://id.example/api", "otp_field": "totp"], code: "287082")
    #expect(plain.1 == ["username": "123456", "password": "123456", "totp": "287082"])
    let hmac = try login(
      "hmac", settings: ["base_url": "https://id.example/api", "time_zone": "UTC", "otp_field": "otp"],
      secrets: ["hmac_key": "qianqian"], code: "12345678")
    #expect(hmac.1 == ["username": "123456", "password": "94ffe794a692a63f2e91b8b9787e3073", "otp": "12345678"])
    if case .ok = hmac.0 {} else { Issue.record("hmac: \(hmac.0)") }
  }

  @Test func withoutTheSettingNoCodeIsSent() throws {
    let plain = try login("plain", settings: ["base_url": "https://id.example/api"], code: "287082")
    #expect(plain.1 == ["username": "123456", "password": "123456"])
    let signed = try login("signed", settings: Self.signed, secrets: Self.key, code: "287082")
    #expect(signed.1["sign"] == "989616cf53a4a3e333dc38e17a433ee4", "the SPEC vector, unchanged")
    #expect(signed.1.count == 8)
  }

  @Test func theSignedLoginSignsTheCode() throws {
    let (outcome, fields) = try login(
      "signed", settings: Self.signed.merging(["otp_param": "otp"]) { $1 }, secrets: Self.key, code: "287082")
    if case .ok = outcome {} else { Issue.record("\(outcome)") }
    #expect(fields["otp"] == "287082")
    // The signature, computed here from SPEC §5's rule with the host's MD5, covers the code.
    let key = Self.key["private_key"]!
    let signedString = fields.filter { $0.key != "sign" }.map { "\($0.key)=\($0.value)" }
      .appending("private_key=\(key)").sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
      .joined(separator: "&")
    #expect(signedString.contains("&otp=287082&"))
    var digest = [UInt8](repeating: 0, count: 32)
    let data = Array(signedString.utf8)
    let count = HostServiceTable.digest(ACC_DIGEST_MD5, data, data.count, &digest, digest.count)
    #expect(fields["sign"] == digest.prefix(count).map { String(format: "%02x", $0) }.joined())
    #expect(fields["sign"] != "989616cf53a4a3e333dc38e17a433ee4")
  }

  @Test func aCodeFieldWithoutACodeIsAnErrorNotALoginWithoutIt() throws {
    for (adapter, settings, secrets) in [
      ("plain", ["base_url": "https://id.example/api", "otp_field": "otp"], [String: String]()),
      ("signed", Self.signed.merging(["otp_param": "otp"]) { $1 }, Self.key),
    ] {
      let (outcome, fields) = try login(adapter, settings: settings, secrets: secrets, code: nil)
      guard case .backendError(let message) = outcome else {
        Issue.record("\(adapter): \(outcome)")
        continue
      }
      #expect(message.contains("needs a one-time code in field \"otp\""), "\(message)")
      #expect(fields.isEmpty, "\(adapter): nothing was sent")
    }
  }

  @Test func theCodeFieldMayNotReuseAFieldTheLoginSends() throws {
    let (plain, _) = try login(
      "plain", settings: ["base_url": "https://id.example/api", "otp_field": "password"], code: "1")
    #expect(
      plain == .backendError(
        message: "setting otp_field has the value \"password\", a field the login already sends; choose another field name"))
    let (signed, _) = try login(
      "signed", settings: Self.signed.merging(["otp_param": "sign"]) { $1 }, secrets: Self.key, code: "1")
    if case .backendError(let message) = signed {
      #expect(message.contains("otp_param"))
    } else {
      Issue.record("\(signed)")
    }
  }

  @Test func aVersion1_0AdapterLoadsAndItsUndefinedBitMeansNothing() throws {
    // Built against a copy of the 1.0 header: no otp_field, abi 1.0, and it logs in.
    let path = try CAdapterCompiler.build("example.c", name: "example", header: .version1_0, into: scratch.path)
    let old = try AdapterLoader.load(path, name: "example").get()
    #expect(old.description.abiText == "1.0")
    #expect(old.description.settings.map(\.name) == ["base_url", "login_path"])
    let transport = CannedTransport(body: #"{"userId": 1001, "token": "t0k3n", "expiresIn": 60}"#)
    let outcome = AdapterSessionRunner(adapter: old, transport: transport, host: fixedHost).run(
      AdapterRequest(
        adapter: "example", backend: "old", settings: ["base_url": "https://id.example/api"], user: "alice",
        operation: .login(password: secret("123456")), timeout: 10))
    #expect(outcome == .ok(AdapterSuccess(token: secret("t0k3n"), expiresIn: 60, sessionValues: ["userId": "1001"])))
    // A 1.0 descriptor with bit 0x8 on a setting: not a ONE_TIME_CODE setting, and a code the
    // host is given anyway never reaches the adapter.
    let bitPath = try CAdapterCompiler.hostile("MODE_OLD_CODE_BIT", name: "oldbit", into: scratch.path)
    let bit = try AdapterLoader.load(bitPath, name: "oldbit").get()
    #expect(bit.description.abiText == "1.0")
    #expect(bit.description.setting(named: "otp_field")?.isOneTimeCode == false)
    #expect(!bit.description.needsOneTimeCode(settings: ["otp_field": "otp"]))
    let given = AdapterSessionRunner(adapter: bit, transport: CannedTransport(), host: fixedHost).run(
      AdapterRequest(
        adapter: "oldbit", backend: "old", settings: ["otp_field": "otp"], user: "alice",
        operation: .login(password: secret("pw"), oneTimeCode: secret("123456")), timeout: 10))
    guard case .ok(let success) = given else { throw OutcomeError(outcome: given) }
    #expect(success.sessionValues["code"] == "absent")
  }

  struct OutcomeError: Error { let outcome: AdapterOutcome }
}

extension Array {
  fileprivate func appending(_ element: Element) -> [Element] { self + [element] }
}
