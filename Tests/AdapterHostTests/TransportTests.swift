import AccountsCore
import Foundation
import Testing
import TestSupport

@testable import AdapterHost

/// The C example adapter through the real libcurl transport against the test backend: logins,
/// and the transport's rules (no redirects, no cookies, bounded size and time).
@Suite struct TransportTests {
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
      adapter: "example", backend: "test", operation: .login, settings: ["base_url": backend.url + base],
      user: "alice", timeout: timeout)
    return AdapterSessionRunner(adapter: adapter)
      .run(request, secrets: AdapterSecrets(password: SecretBytes(consuming: &bytes)))
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

  @Test func cookiesAreNeitherKeptNorSent() throws {
    _ = login(base: "/plain/plain")
    _ = login(base: "/plain/plain")
    let logins = try backend.requests().filter { ($0["path"] as? String) == "/plain/plain/login" }
    #expect(logins.count == 2)
    for request in logins {
      let headers = request["headers"] as? [String: String] ?? [:]
      #expect(headers["cookie"] == nil)
    }
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
      adapter: "example", backend: "test", operation: .login, settings: ["base_url": "http://127.0.0.1:9/x"],
      user: "alice", timeout: 5)
    let (outcome, _) = AdapterSessionRunner(adapter: adapter).run(request, secrets: AdapterSecrets())
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
