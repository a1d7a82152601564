import AccountsContract
import AccountsSystem
import CAccountsAdapter
import Foundation
import SecretMemory
import Testing
import TestSupport

@testable import AdapterHost

/// Every test vector of SPEC §5, computed by the built-in adapters' .so files loaded through
/// the host, with a fixed clock and randomness, read off the request they ask the host to send.
@Suite struct TestVectorTests {
  func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

  /// The form fields of the login request `adapter` makes for user/password 123456.
  func loginFields(_ adapter: String, settings: [String: String], secrets: [String: String] = [:]) throws -> [String: String] {
    let path = PackagePaths.products.appendingPathComponent("lib\(adapter).so").path
    let loaded = try AdapterLoader.load(path, name: adapter).get()
    let transport = CannedTransport(body: #"{"userId": 1001, "token": "t0k3n", "expiresIn": 60}"#)
    let request = AdapterRequest(
      adapter: adapter, backend: "vectors", settings: settings, user: "123456",
      operation: .login(password: secret("123456")), timeout: 10)
    let outcome = AdapterSessionRunner(adapter: loaded, transport: transport, host: fixedHost).run(
      request, secretSettings: secrets.mapValues(secret))
    #expect(outcome == .ok(AdapterSuccess(token: secret("t0k3n"), expiresIn: 60, sessionValues: ["userId": "1001"])))
    #expect(outcome.token.map { String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self) } == "t0k3n")
    let sent = try #require(transport.requests.first)
    #expect(sent.method == "POST")
    var fields: [String: String] = [:]
    for pair in String(decoding: sent.body, as: UTF8.self).split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding! }
      fields[parts[0]] = parts.count > 1 ? parts[1] : ""
    }
    return fields
  }

  @Test func plainEncodings() throws {
    let base = ["base_url": "https://id.example/api"]
    #expect(try loginFields("plain", settings: base.merging(["encoding": "base64"]) { $1 })["password"] == "MTIzNDU2")
    #expect(try loginFields("plain", settings: base.merging(["encoding": "md5"]) { $1 })["password"] == "e10adc3949ba59abbe56e057f20f883e")
    #expect(
      try loginFields("plain", settings: base.merging(["encoding": "md5-hmac"]) { $1 }, secrets: ["hmac_key": "qianqian"])["password"]
        == "41bab42bb4b0da6bfbdd2210c7df3ac2")
    #expect(try loginFields("plain", settings: base)["password"] == "123456")
  }

  @Test func hmacProofAtTheVectorMinute() throws {
    let fields = try loginFields(
      "hmac", settings: ["base_url": "https://id.example/api", "time_zone": "UTC"], secrets: ["hmac_key": "qianqian"])
    #expect(fields == ["username": "123456", "password": "94ffe794a692a63f2e91b8b9787e3073"])
  }

  @Test func signedLoginSignature() throws {
    let fields = try loginFields(
      "signed",
      settings: ["base_url": "https://api.example/api", "app_id": "170ib799dd511e7b66000163e033322", "plat": "iOS", "ver": "1.0"],
      secrets: ["private_key": "170ib799dd511e7b66000163e033322"])
    #expect(fields == [
      "app_id": "170ib799dd511e7b66000163e033322", "password": "123456", "phoneNo": "123456", "plat": "iOS",
      "rand": "12dwfhdy487rSels", "timestamp": "2017-12-09-13:39:39", "ver": "1.0",
      "sign": "989616cf53a4a3e333dc38e17a433ee4",
    ])
  }
}
