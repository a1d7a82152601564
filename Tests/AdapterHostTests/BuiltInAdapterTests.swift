import AccountsCore
import Foundation
import Testing
import TestSupport

@testable import AdapterHost

/// The built-in adapters through the host and libcurl against the test backend, whose Python
/// code checks every signature and proof independently of the Swift code.
@Suite struct BuiltInAdapterTests {
  static let appID = "170ib799dd511e7b66000163e033322"
  let backend: TestBackend

  init() throws { backend = try TestBackend() }

  struct Session {
    var token: SecretBytes?
    var values: [String: String]
  }

  func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

  func adapter(_ name: String) throws -> LoadedAdapter {
    try AdapterLoader.load(PackagePaths.products.appendingPathComponent("lib\(name).so").path, name: name).get()
  }

  func run(
    _ name: String, _ operation: AdapterOperation, settings: [String: String], secrets: [String: String] = [:],
    user: String = "alice", password: String? = nil, session: Session? = nil,
    method: String = "", path: String = "", parameters: [(String, String)] = []
  ) throws -> (AdapterOutcome, SecretBytes?) {
    let request = AdapterRequest(
      adapter: name, backend: "live", operation: operation, settings: settings, user: user,
      sessionValues: session?.values ?? [:], method: method, path: path, parameters: parameters, timeout: 10)
    let secrets = AdapterSecrets(
      password: password.map(secret), token: session?.token, settings: secrets.mapValues(secret))
    return AdapterSessionRunner(adapter: try adapter(name)).run(request, secrets: secrets)
  }

  func login(_ name: String, settings: [String: String], secrets: [String: String] = [:], user: String = "alice", password: String = "123456") throws -> Session {
    let (outcome, token) = try run(name, .login, settings: settings, secrets: secrets, user: user, password: password)
    guard case .ok(let success) = outcome else {
      Issue.record("\(name) login: \(outcome)")
      return Session(token: nil, values: [:])
    }
    #expect(token?.count == 32, "\(name) got a token")
    #expect(success.expiresIn == 3600)
    return Session(token: token, values: success.sessionValues)
  }

  var signed: [String: String] {
    ["base_url": backend.url + "/signed/api", "app_id": Self.appID, "ver": "1.0", "check_path": "check", "logout_path": "logout"]
  }

  @Test func plainLogsInChecksCallsAndLogsOut() throws {
    let settings = [
      "base_url": backend.url + "/plain/md5-salt", "encoding": "md5-salt", "salt": "pepper",
      "check_path": "check", "logout_path": "logout",
    ]
    let session = try login("plain", settings: settings)
    #expect(session.values == ["userId": "1001"])
    #expect(try run("plain", .check, settings: settings, session: session).0 == .ok(AdapterSuccess(expiresIn: 3600)))
    let (called, _) = try run("plain", .call, settings: settings, session: session, method: "POST", path: "user/info", parameters: [("q", "a b&c")])
    guard case .ok(let reply) = called else { throw Failure("call: \(called)") }
    let body = try #require(try JSONSerialization.jsonObject(with: Data((reply.body ?? "").utf8)) as? [String: Any])
    #expect(body["path"] as? String == "user/info" && (body["params"] as? [String: String]) == ["q": "a b&c"])
    #expect(try run("plain", .logout, settings: settings, session: session).0 == .ok(AdapterSuccess()))
    #expect(try run("plain", .check, settings: settings, session: session).0 == .sessionExpired(message: "token expired"))
    let (wrong, _) = try run("plain", .login, settings: settings, password: "nope")
    #expect(wrong == .wrongPassword(message: "wrong username or password"))
  }

  @Test func plainRefusesReadablePasswordsOverHTTP() throws {
    let (outcome, _) = try run("plain", .login, settings: ["base_url": backend.url + "/plain/plain"], password: "123456")
    guard case .backendError(let message) = outcome else { throw Failure("expected a refusal, got \(outcome)") }
    #expect(message.contains("allow_insecure_transport=true"))
    #expect(try backend.requests().isEmpty, "nothing was sent")
    _ = try login("plain", settings: ["base_url": backend.url + "/plain/plain", "allow_insecure_transport": "true"])
  }

  @Test func hmacSessionsAreTakenOverBySingleSignOn() throws {
    let settings = ["base_url": backend.url + "/hmac", "time_zone": "UTC", "check_path": "check"]
    let session = try login("hmac", settings: settings, secrets: ["hmac_key": "qianqian"])
    let check = { try self.run("hmac", .check, settings: settings, secrets: ["hmac_key": "qianqian"], session: session).0 }
    #expect(try check() == .ok(AdapterSuccess(expiresIn: 3600)))
    try backend.control("takeover", ["name": "alice", "family": "hmac"])
    #expect(try check() == .kicked(message: "signed in on another device"))
  }

  @Test func signedCallsAreAcceptedByTheServersOwnCheck() throws {
    let secrets = ["private_key": Self.appID]
    let session = try login("signed", settings: signed, secrets: secrets)
    #expect(session.values == ["userId": "1001"])
    let (called, _) = try run(
      "signed", .call, settings: signed, secrets: secrets, session: session, method: "POST", path: "user/info",
      parameters: [("nickname", "Ålice & co"), ("page", "1")])
    guard case .ok(let reply) = called else { throw Failure("call: \(called)") }
    let body = try #require(try JSONSerialization.jsonObject(with: Data((reply.body ?? "").utf8)) as? [String: Any])
    #expect(body["ok"] as? Bool == true && body["userId"] as? Int == 1001)
    #expect((body["params"] as? [String: String]) == ["nickname": "Ålice & co", "page": "1"])
    let sent = try #require(try backend.requests().last?["form"] as? [String: String])
    #expect(sent["private_key"] == nil && sent["sign"]?.count == 32 && sent["rand"]?.count == 16)

    #expect(try run("signed", .check, settings: signed, secrets: secrets, session: session).0 == .ok(AdapterSuccess(expiresIn: 3600)))
    try backend.control("expire", ["name": "alice"])
    #expect(try run("signed", .check, settings: signed, secrets: secrets, session: session).0 == .sessionExpired(message: "token expired"))
  }

  @Test func signedWrongKeyWrongPasswordAndRetiredApp() throws {
    let (badKey, _) = try run("signed", .login, settings: signed, secrets: ["private_key": "not-the-key"], password: "123456")
    #expect(badKey == .backendError(message: "bad signature"), "a bad key is no reason to forget a password")
    let (wrong, _) = try run("signed", .login, settings: signed, secrets: ["private_key": Self.appID], password: "654321")
    #expect(wrong == .wrongPassword(message: "wrong username or password"))
    try backend.control("retire", ["app_id": Self.appID])
    let (retired, _) = try run("signed", .login, settings: signed, secrets: ["private_key": Self.appID], password: "123456")
    #expect(retired == .upgradeRequired(message: "upgrade required", link: "https://example.invalid/update/\(Self.appID)"))
  }

  @Test func hostileRepliesEndInErrors() throws {
    for (path, expected) in [
      ("/hostile/garbage", "the backend's reply is not JSON (HTTP 200)"),
      ("/hostile/status/500", "the backend answered HTTP 500: status 500"),
    ] {
      let (outcome, _) = try run("plain", .login, settings: ["base_url": backend.url + path, "encoding": "md5"], password: "x")
      #expect(outcome == .backendError(message: expected), "\(path)")
    }
    let (types, _) = try run("plain", .login, settings: ["base_url": backend.url + "/hostile/types", "encoding": "md5"], password: "x")
    guard case .backendError(let message) = types else { throw Failure("wrong types: \(types)") }
    #expect(message.contains("userId"))
  }
}

struct Failure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
