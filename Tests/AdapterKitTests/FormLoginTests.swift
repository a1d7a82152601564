import SecretMemory
import Testing

@testable import AdapterKit

/// The form-login family's requests, built in-process with a fake host.
@Suite struct FormLoginTests {
  static let definitions = BackendSettings.definitions + FormLoginSettings.definitions

  func session(
    _ operation: Operation, _ given: [String: String] = [:], token: String = "tok",
    method: String = "", path: String = "", parameters: [Pair] = [], code: String = ""
  ) throws(AdapterError) -> FormLoginSession {
    let settings = Settings(
      definitions: Self.definitions,
      ["base_url": "https://id.example.com/api/", "check_path": "check", "logout_path": "logout"]
        .merging(given) { $1 })
    let configuration = SessionConfiguration(
      operation: operation, settings: settings, user: "alice",
      password: SecretBytes(Array("123 456".utf8)), token: token, method: method, path: path,
      parameters: parameters, oneTimeCode: SecretBytes(Array(code.utf8)))
    return FormLoginSession(
      configuration: configuration, settings: try FormLoginSettings(settings)
    ) { password throws(AdapterError) in
      SecretBytes(concatenating: ["<", password, ">"])
    }
  }

  func request(_ session: FormLoginSession) throws(AdapterError) -> Request {
    guard case .send(let request, _) = try session.start() else {
      throw AdapterError("expected a request")
    }
    return request
  }

  @Test func loginPostsAFormWithTheEncodedPassword() throws {
    let request = try request(session(.login))
    #expect(request.method == "POST")
    #expect(request.url == "https://id.example.com/api/login")
    #expect(request.headers == [Pair("Content-Type", "application/x-www-form-urlencoded")])
    #expect(request.body.text == "username=alice&password=%3C123%20456%3E")
  }

  @Test func loginSendsTheOneTimeCodeInTheOTPFieldOnly() throws {
    let withCode = try request(session(.login, ["otp_field": "otp"], code: "287082"))
    #expect(withCode.body.text == "username=alice&password=%3C123%20456%3E&otp=287082")
    let unset = try request(session(.login, code: "287082"))
    #expect(unset.body.text == "username=alice&password=%3C123%20456%3E", "no otp_field, no code sent")
    let query = try request(session(.login, ["otp_field": "totp code", "method": "GET"], code: "12345678"))
    #expect(query.url == "https://id.example.com/api/login?username=alice&password=%3C123%20456%3E&totp%20code=12345678")
    #expect(
      errorMessage { () throws(AdapterError) in try session(.login, ["otp_field": "otp"]).start() }?
        .contains("needs a one-time code in field \"otp\"") == true)
    #expect(
      errorMessage { () throws(AdapterError) in try session(.login, ["otp_field": "username"]) }
        == "setting otp_field has the value \"username\", a field the login already sends; choose another field name")
  }

  @Test func loginWithGetPutsTheFieldsInTheQuery() throws {
    let request = try request(
      session(
        .login,
        [
          "method": "GET", "username_field": "user name", "password_field": "pw",
          "login_path": "/auth/in",
        ]))
    #expect(request.method == "GET")
    #expect(
      request.url == "https://id.example.com/api/auth/in?user%20name=alice&pw=%3C123%20456%3E")
    #expect(request.headers.isEmpty)
    #expect(request.body.isEmpty)
  }

  @Test func checkAndLogoutCarryTheTokenHeader() throws {
    let check = try request(session(.check, ["token_header": "X-Token"]))
    #expect(check.method == "GET")
    #expect(check.url == "https://id.example.com/api/check")
    #expect(check.headers == [Pair("X-Token", "tok")])
    let logout = try request(session(.logout))
    #expect(logout.method == "POST")
    #expect(logout.url == "https://id.example.com/api/logout")
    #expect(logout.headers == [Pair("AuthorisedToken", "tok")])
    #expect(logout.body.isEmpty)
  }

  @Test func withoutPathsCheckAndLogoutNeedNoRequest() throws {
    let settings = Settings(definitions: Self.definitions, ["base_url": "https://x"])
    for operation in [Operation.check, .logout] {
      let session = FormLoginSession(
        configuration: SessionConfiguration(operation: operation, settings: settings),
        settings: try FormLoginSettings(settings)
      ) { $0 }
      #expect(try session.start() == .ok)
    }
  }

  @Test func callsPutParametersInTheBodyOrTheQueryByMethod() throws {
    let parameters = [Pair("a", "1 2"), Pair("b", "é")]
    for method in ["post", "PUT", "Patch"] {
      let request = try request(
        session(.call, method: method, path: "/user/info", parameters: parameters))
      #expect(request.method == method.uppercased())
      #expect(request.url == "https://id.example.com/api/user/info")
      #expect(
        request.headers == [
          Pair("AuthorisedToken", "tok"), Pair("Content-Type", "application/x-www-form-urlencoded"),
        ])
      #expect(request.body.text == "a=1%202&b=%C3%A9")
    }
    for method in ["GET", "delete", "HEAD"] {
      let request = try request(
        session(.call, method: method, path: "user", parameters: parameters))
      #expect(request.url == "https://id.example.com/api/user?a=1%202&b=%C3%A9")
      #expect(request.headers == [Pair("AuthorisedToken", "tok")])
      #expect(request.body.isEmpty)
    }
    let bare = try request(session(.call, method: "GET", path: "user"))
    #expect(bare.url == "https://id.example.com/api/user")
  }

  @Test func badMethodsAndTokensAreRefusedBeforeAnyRequest() throws {
    #expect(
      errorMessage { () throws(AdapterError) in
        try session(.call, method: "GET /x HTTP/1.1", path: "p").start()
      }?.hasPrefix("the HTTP method") == true)
    #expect(
      errorMessage { () throws(AdapterError) in try session(.check, token: "a\r\nX: y").start() }
        == "the stored token contains control characters; log in again")
  }

  @Test func theReplyIsReadWithTheConfiguredFields() throws {
    let session = try session(.login, ["success_field": "uid", "token_field": "sid"])
    #expect(
      try session.resume(with: .json(#"{"uid": 5, "sid": "s"}"#))
        == .ok(token: "s", sessionValues: [Pair("userId", "5")]))
  }

  @Test(arguments: [
    (["method": "PUT"], #"setting method has the unknown value "PUT"; accepted: POST, GET"#),
    (["token_header": "Auth Token"], #"setting token_header has the unknown value "Auth Token""#),
    (["token_header": "X:"], #"setting token_header has the unknown value "X:""#),
    (["base_url": "ftp://x"], "setting base_url must be an http:// or https:// URL"),
  ])
  func badSettingsAreNamed(given: [String: String], prefix: String) {
    let message = errorMessage { () throws(AdapterError) in try session(.validate, given) }
    #expect(message?.hasPrefix(prefix) == true, "\(message ?? "no error")")
  }
}
