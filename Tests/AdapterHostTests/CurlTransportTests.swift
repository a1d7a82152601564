import AccountsContract
import AccountsSystem
import AccountsText
import Foundation
import SecretMemory
import Testing
import TestSupport

@testable import AdapterHost

/// The C example adapter through the real libcurl transport against the test backend: logins,
/// and the transport's rules (no redirects, no cookies, bounded size and time).
@Suite(.blocking) struct CurlTransportTests {
  let scratch: ScratchDirectory
  let backend: TestBackend
  let adapter: LoadedAdapter

  init() throws {
    scratch = try ScratchDirectory()
    backend = try TestBackend()
    let path = try CAdapterCompiler.build("example.c", name: "example", into: scratch.path)
    adapter = try AdapterLoader.load(path, name: "example").get()
  }

  func login(base: String, password: String = "123456", timeout: Double = 10) -> (AdapterOutcome, SecretBytes?) {
    var bytes = Array(password.utf8)
    let request = AdapterRequest(
      adapter: "example", backend: "test", settings: ["base_url": backend.url + base], user: "alice",
      operation: .login(password: SecretBytes(consuming: &bytes)), timeout: timeout)
    let outcome = AdapterSessionRunner(adapter: adapter).run(request)
    return (outcome, outcome.token)
  }

  @Test func aCAdapterLogsInAndGetsAToken() throws {
    let (outcome, token) = login(base: "/plain/plain")
    guard case .ok(let success) = outcome else {
      Issue.record("login failed: \(outcome)")
      return
    }
    #expect(success.sessionValues == ["userId": "1001"])
    #expect(success.expiresIn == 3600)
    #expect(token?.count == 32)
    let (wrong, noToken) = login(base: "/plain/plain", password: "654321")
    #expect(wrong == .wrongPassword(message: "the backend rejected the user name or password"))
    #expect(noToken == nil)
  }

  /// One request through the transport itself.
  func perform(_ url: String, method: String = "GET", body: String = "", limit: Int = 4 << 20) throws(TransportError) -> HTTPResponse {
    try CurlTransport().perform(
      HTTPRequest(
        method: method, url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")],
        body: Array(body.utf8)),
      timeout: 10, responseLimit: limit)
  }

  @Test func cookiesAreNeitherKeptNorSent() throws {
    // The premise: a login reply sets a cookie. Without it this test would prove nothing.
    let first = try perform(backend.url + "/plain/plain/login", method: "POST", body: "username=alice&password=123456")
    #expect(first.headers.contains { $0.name == "set-cookie" && $0.value.hasPrefix("session=abc") }, "\(first.headers)")
    _ = try perform(backend.url + "/plain/plain/login", method: "POST", body: "username=alice&password=123456")
    _ = login(base: "/plain/plain")
    _ = login(base: "/plain/plain")
    let logins = try backend.requests().filter { ($0["path"] as? String) == "/plain/plain/login" }
    #expect(logins.count == 4)
    for request in logins {
      let headers = request["headers"] as? [String: String] ?? [:]
      #expect(headers["cookie"] == nil, "a request after a Set-Cookie carried \(headers)")
    }
  }

  /// Both sides of the cap: a body of exactly the limit is read, one byte more is refused.
  @Test func theResponseLimitIsExact() throws {
    let exact = try perform(backend.url + "/hostile/size/1000", limit: 1000)
    #expect(exact.status == 200 && exact.body.count == 1000)
    #expect(throws: TransportError.tooLarge(limit: 1000)) { try perform(self.backend.url + "/hostile/size/1001", limit: 1000) }
    #expect(TransportError.tooLarge(limit: 1000).message == "the reply is larger than 1000 bytes")
    #expect(TransportError.tooLarge(limit: 4 << 20).message == "the reply is larger than 4 MiB")
    // The runner hands its limit to the transport.
    var limits = AdapterLimits()
    limits.response = 1000
    let request = AdapterRequest(
      adapter: "example", backend: "test", settings: ["base_url": backend.url + "/hostile/size/1001"], user: "alice",
      operation: .login(password: SecretBytes(copying: UnsafeRawBufferPointer(start: nil, count: 0))), timeout: 10)
    let outcome = AdapterSessionRunner(adapter: adapter, limits: limits).run(request)
    #expect(outcome == .backendError(message: "POST \(backend.url)/hostile/size/1001/login: the reply is larger than 1000 bytes"))
  }

  /// http and https only, whatever URL reaches the transport (the output reader refuses
  /// others first; this is the second line).
  @Test(arguments: ["file:///etc/hostname", "ftp://127.0.0.1:9/x", "gopher://127.0.0.1:9/x", "dict://127.0.0.1:9/x"])
  func otherProtocolsAreRefusedByTheTransport(url: String) {
    let scheme = String(url.prefix { $0 != ":" })
    #expect(throws: TransportError.unsupportedProtocol(scheme: scheme)) { try perform(url) }
  }

  @Test func aRedirectToAFileIsNotFollowed() throws {
    let response = try perform(backend.url + "/hostile/redirect-file/login")
    #expect(response.status == 302)
    #expect(response.headers.contains { $0.name == "location" && $0.value == "file:///etc/hostname" })
    #expect(String(decoding: response.body, as: UTF8.self) == #"{"err": {"code": -2, "msg": "redirect"}}"#)
  }

  @Test func redirectsAreNotFollowed() throws {
    let (outcome, _) = login(base: "/hostile/redirect")
    #expect(outcome == .wrongPassword(message: "the backend rejected the user name or password"))  // it saw the 302
    let paths = try backend.requests().compactMap { $0["path"] as? String }
    #expect(paths == ["/hostile/redirect/login"])
  }

  @Test func hugeRepliesAreCutOff() throws {
    let (outcome, _) = login(base: "/hostile/huge")
    #expect(outcome == .backendError(message: "POST \(backend.url)/hostile/huge/login: the reply is larger than 4 MiB"))
  }

  @Test func slowBackendsEndAtTheDeadline() throws {
    let started = Date()
    let (outcome, _) = login(base: "/hostile/slow", timeout: 1)
    #expect(outcome == .backendError(message: "the backend did not answer within 1 s (adapter example)"))
    #expect(Date().timeIntervalSince(started) < 5)
  }

  @Test func unreachableBackendsAreNetworkErrors() throws {
    let request = AdapterRequest(
      adapter: "example", backend: "test", settings: ["base_url": "http://127.0.0.1:9/x"], user: "alice",
      operation: .login(password: SecretBytes(copying: UnsafeRawBufferPointer(start: nil, count: 0))), timeout: 5)
    let outcome = AdapterSessionRunner(adapter: adapter).run(request)
    guard case .backendError(let message) = outcome else {
      Issue.record("expected a network error, got \(outcome)")
      return
    }
    #expect(message.hasPrefix("POST http://127.0.0.1:9/x/login: "))
  }

  @Test func queryStringsStayOutOfMessages() {
    #expect(URLText.withoutSecrets("http://u:p@h:1/login?password=123456#x") == "http://h:1/login")
    #expect(URLText.withoutSecrets("https://h/a/b") == "https://h/a/b")
  }
}
