import AccountsContract
import AccountsSystem
import Foundation
import SecretMemory
import Testing
import TestSupport

@testable import AdapterHost

/// The built-in adapters through the host and libcurl against the test backend, whose Python
/// code checks every signature and proof independently of the Swift code.
@Suite(.blocking) struct BuiltInAdapterTests {
  static let appID = "170ib799dd511e7b66000163e033322"
  let backend: TestBackend

  init() throws { backend = try TestBackend() }

  struct Session {
    var token: SecretBytes
    var values: [String: String]

    var check: AdapterOperation { .check(token: token) }
    var logout: AdapterOperation { .logout(token: token) }

    func call(_ method: String, _ path: String, _ parameters: [(String, String)]) -> AdapterOperation {
      .call(token: token, method: method, path: path, parameters: parameters)
    }
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
    user: String = "alice", session: Session? = nil
  ) throws -> AdapterOutcome {
    let request = AdapterRequest(
      adapter: name, backend: "live", settings: settings, user: user, sessionValues: session?.values ?? [:],
      operation: operation, timeout: 10)
    return AdapterSessionRunner(adapter: try adapter(name)).run(request, secretSettings: secrets.mapValues(secret))
  }

  func login(_ name: String, settings: [String: String], secrets: [String: String] = [:], user: String = "alice", password: String = "123456") throws -> Session {
    let outcome = try run(name, .login(password: secret(password)), settings: settings, secrets: secrets, user: user)
    guard case .ok(let success) = outcome, let token = success.token else {
      Issue.record("\(name) login: \(outcome)")
      return Session(token: secret(""), values: [:])
    }
    #expect(token.count == 32, "\(name) got a token")
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
    #expect(try run("plain", session.check, settings: settings, session: session) == .ok(AdapterSuccess(expiresIn: 3600)))
    let called = try run("plain", session.call("POST", "user/info", [("q", "a b&c")]), settings: settings, session: session)
    guard case .ok(let reply) = called else { throw Failure("call: \(called)") }
    let body = try #require(try JSONSerialization.jsonObject(with: Data((reply.body ?? "").utf8)) as? [String: Any])
    #expect(body["path"] as? String == "user/info" && (body["params"] as? [String: String]) == ["q": "a b&c"])
    #expect(try run("plain", session.logout, settings: settings, session: session) == .ok(AdapterSuccess()))
    #expect(try run("plain", session.check, settings: settings, session: session) == .sessionExpired(message: "token expired"))
    let wrong = try run("plain", .login(password: secret("nope")), settings: settings)
    #expect(wrong == .wrongPassword(message: "wrong username or password"))
  }

  @Test func plainRefusesReadablePasswordsOverHTTP() throws {
    let outcome = try run("plain", .login(password: secret("123456")), settings: ["base_url": backend.url + "/plain/plain"])
    guard case .backendError(let message) = outcome else { throw Failure("expected a refusal, got \(outcome)") }
    #expect(message.contains("allow_insecure_transport=true"))
    #expect(try backend.requests().isEmpty, "nothing was sent")
    _ = try login("plain", settings: ["base_url": backend.url + "/plain/plain", "allow_insecure_transport": "true"])
  }

  @Test func hmacSessionsAreTakenOverBySingleSignOn() throws {
    let settings = ["base_url": backend.url + "/hmac", "time_zone": "UTC", "check_path": "check"]
    let session = try login("hmac", settings: settings, secrets: ["hmac_key": "qianqian"])
    let check = { try self.run("hmac", session.check, settings: settings, secrets: ["hmac_key": "qianqian"], session: session) }
    #expect(try check() == .ok(AdapterSuccess(expiresIn: 3600)))
    try backend.control("takeover", ["name": "alice", "family": "hmac"])
    #expect(try check() == .kicked(message: "signed in on another device"))
  }

  @Test func signedCallsAreAcceptedByTheServersOwnCheck() throws {
    let secrets = ["private_key": Self.appID]
    let session = try login("signed", settings: signed, secrets: secrets)
    #expect(session.values == ["userId": "1001"])
    let called = try run(
      "signed", session.call("POST", "user/info", [("nickname", "Ålice & co"), ("page", "1")]), settings: signed,
      secrets: secrets, session: session)
    guard case .ok(let reply) = called else { throw Failure("call: \(called)") }
    let body = try #require(try JSONSerialization.jsonObject(with: Data((reply.body ?? "").utf8)) as? [String: Any])
    #expect(body["ok"] as? Bool == true && body["userId"] as? Int == 1001)
    #expect((body["params"] as? [String: String]) == ["nickname": "Ålice & co", "page": "1"])
    let sent = try #require(try backend.requests().last?["form"] as? [String: String])
    #expect(sent["private_key"] == nil && sent["sign"]?.count == 32 && sent["rand"]?.count == 16)

    #expect(try run("signed", session.check, settings: signed, secrets: secrets, session: session) == .ok(AdapterSuccess(expiresIn: 3600)))
    try backend.control("expire", ["name": "alice"])
    #expect(try run("signed", session.check, settings: signed, secrets: secrets, session: session) == .sessionExpired(message: "token expired"))
  }

  @Test func signedWrongKeyWrongPasswordAndRetiredApp() throws {
    let badKey = try run("signed", .login(password: secret("123456")), settings: signed, secrets: ["private_key": "not-the-key"])
    #expect(badKey == .backendError(message: "bad signature"), "a bad key is no reason to forget a password")
    let wrong = try run("signed", .login(password: secret("654321")), settings: signed, secrets: ["private_key": Self.appID])
    #expect(wrong == .wrongPassword(message: "wrong username or password"))
    try backend.control("retire", ["app_id": Self.appID])
    let retired = try run("signed", .login(password: secret("123456")), settings: signed, secrets: ["private_key": Self.appID])
    #expect(retired == .upgradeRequired(message: "upgrade required", link: "https://example.invalid/update/\(Self.appID)"))
  }

  @Test func hostileRepliesEndInErrors() throws {
    for (path, expected) in [
      ("/hostile/garbage", "the backend's reply is not JSON (HTTP 200)"),
      ("/hostile/status/500", "the backend answered HTTP 500: status 500"),
    ] {
      let outcome = try run("plain", .login(password: secret("x")), settings: ["base_url": backend.url + path, "encoding": "md5"])
      #expect(outcome == .backendError(message: expected), "\(path)")
    }
    let types = try run("plain", .login(password: secret("x")), settings: ["base_url": backend.url + "/hostile/types", "encoding": "md5"])
    guard case .backendError(let message) = types else { throw Failure("wrong types: \(types)") }
    #expect(message.contains("userId"))
  }
}

struct Failure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
