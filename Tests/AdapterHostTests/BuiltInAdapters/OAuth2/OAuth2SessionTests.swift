import CAccountsAdapter
import Testing

@testable import AdapterHost

/// What a session's token does: CHECK by introspection, userinfo or the expiry alone; LOGOUT
/// revokes; CALL carries the bearer to api_base.
@Suite struct OAuth2SessionTests {
  static let settings = [
    "token_endpoint": "https://id.example/o/token/", "client_id": "qa", "client_secret": "sec",
    "introspection_endpoint": "https://id.example/o/introspect/", "userinfo_endpoint": "https://id.example/o/userinfo/",
    "revocation_endpoint": "https://id.example/o/revoke/", "api_base": "https://api.example/v1/",
  ]

  func settings(_ more: [String: String]) -> [String: String] { Self.settings.merging(more) { $1 } }

  @Test func withoutACheckTheExpiryAloneDecides() throws {
    #expect(try StepDriver(.check(), settings: Self.settings).start() == .ok(Done()))
  }

  @Test func introspectionAsksWithTheResourceServersCredentials() throws {
    let driver = try StepDriver(
      .check(), settings: settings(["check": "introspection", "introspection_client_id": "rs", "introspection_client_secret": "rs-sec"]))
    let sent = try #require(driver.start().sent)
    #expect(sent.method == "POST" && sent.url == "https://id.example/o/introspect/")
    #expect(sent.form == ["token=at-1", "token_type_hint=access_token"])
    #expect(sent.basic?.id == "rs" && sent.basic?.secret == "rs-sec")
    #expect(driver.json(#"{"active": true, "exp": \#(StepClock.now + 120), "scope": "openid"}"#) == .ok(Done(expiresIn: 120)))
  }

  /// A hostile exp far in the past cannot overflow the subtraction (it would end the process).
  @Test func anExpOfTheLeastIntegerIsAnExpiredToken() throws {
    let driver = try StepDriver(
      .check(), settings: settings(["check": "introspection", "introspection_client_id": "rs", "introspection_client_secret": "rs-sec"]))
    _ = driver.start()
    #expect(
      driver.json(#"{"active": true, "exp": -9223372036854775808}"#)
        == .sessionExpired("the provider says the token has expired"))
  }

  @Test func introspectionDefaultsToTheClientsOwnCredentials() throws {
    let sent = try #require(try StepDriver(.check(), settings: settings(["check": "introspection"])).start().sent)
    #expect(sent.basic?.id == "qa" && sent.basic?.secret == "sec")
  }

  @Test(arguments: [
    (#"{"active": true}"#, Step.ok(Done())),
    (#"{"active": false}"#, .sessionExpired("the provider says the token is no longer active")),
    (#"{"active": true, "exp": 1512826779}"#, .sessionExpired("the provider says the token has expired")),
    (#"{"active": "yes"}"#, .error("the introspection endpoint's reply has no boolean active")),
  ])
  func introspectionAnswers(body: String, result: Step) throws {
    let driver = try StepDriver(.check(), settings: settings(["check": "introspection"])).started()
    #expect(driver.json(body) == result)
  }

  @Test func refusedIntrospectionCredentialsNameTheirSettings() throws {
    let refused =
      "check settings introspection_client_id and introspection_client_secret (default: client_id and client_secret)"
    let driver = try StepDriver(.check(), settings: settings(["check": "introspection"])).started()
    #expect(driver.answer(401, "") == .error("the introspection endpoint refused the resource server's credentials (HTTP 401); " + refused))
    let invalid = try StepDriver(.check(), settings: settings(["check": "introspection"])).started()
    #expect(
      invalid.json(#"{"error": "invalid_client"}"#, status: 400)
        == .error("the introspection endpoint refused the resource server's credentials (HTTP 400); " + refused))
  }

  @Test func userinfoAsksWithTheToken() throws {
    let driver = try StepDriver(.check(), settings: settings(["check": "userinfo"]))
    let sent = try #require(driver.start().sent)
    #expect(sent.method == "GET" && sent.url == "https://id.example/o/userinfo/" && sent.body.isEmpty)
    #expect(sent.headers == ["Accept": "application/json", "Authorization": "Bearer at-1"])
    #expect(driver.json(#"{"sub": "42"}"#) == .ok(Done()))
  }

  @Test(arguments: [
    (Int32(401), Step.sessionExpired("the provider's userinfo endpoint refused the token (HTTP 401)")),
    (403, .error("the userinfo endpoint refused the token (HTTP 403): it may lack the scope openid; add openid to setting scope, or use check introspection")),
    (500, .error("the userinfo endpoint answered HTTP 500 with an empty body")),
  ])
  func userinfoRefusals(status: Int32, result: Step) throws {
    let driver = try StepDriver(.check(), settings: settings(["check": "userinfo"])).started()
    #expect(driver.answer(status) == result)
  }

  @Test func aCheckWithoutATokenIsAnExpiredSession() throws {
    #expect(
      try StepDriver(.check(token: ""), settings: settings(["check": "userinfo"])).start()
        == .sessionExpired("the session has no access token; log in again"))
  }

  /// RFC 7009: the refresh token first, then the access token, each with its hint.
  @Test func logoutRevokesBothTokens() throws {
    let driver = try StepDriver(.logout(refreshToken: "rt-1"), settings: Self.settings)
    let first = try #require(driver.start().sent)
    #expect(first.method == "POST" && first.url == "https://id.example/o/revoke/")
    #expect(first.form == ["token=rt-1", "token_type_hint=refresh_token"] && first.basic?.secret == "sec")
    let second = try #require(driver.answer(200).sent)
    #expect(second.form == ["token=at-1", "token_type_hint=access_token"] && second.basic?.id == "qa")
    #expect(driver.answer(200, "{}") == .ok(Done()))
  }

  @Test func logoutWithoutARevocationEndpointSaysTheTokensStayValid() throws {
    var settings = Self.settings
    settings["revocation_endpoint"] = nil
    #expect(
      try StepDriver(.logout(refreshToken: "rt-1"), settings: settings).start()
        == .ok(Done(message: "the provider has no revocation endpoint: the tokens stay valid until they expire")))
    // Nor has the issuer's discovery document one.
    let discovered = try StepDriver(.logout(), settings: ["issuer": "https://id.example", "client_id": "qa"])
    #expect(discovered.start().sent?.url == "https://id.example/.well-known/openid-configuration")
    #expect(
      discovered.json(#"{"issuer": "https://id.example", "token_endpoint": "https://id.example/t"}"#).sent?.url
        == "https://id.example/.well-known/oauth-authorization-server")
    #expect(
      discovered.answer(404)
        == .ok(Done(message: "the provider has no revocation endpoint: the tokens stay valid until they expire")))
  }

  @Test func aTokenTheProviderCannotRevokeIsSaidToStayValid() throws {
    let driver = try StepDriver(.logout(refreshToken: "rt-1"), settings: Self.settings).started()
    _ = driver.answer(200)
    #expect(
      driver.json(#"{"error": "unsupported_token_type"}"#, status: 400)
        == .ok(Done(message: "the provider cannot revoke the access token: it stays valid until it expires")))
  }

  @Test func aRevocationTheProviderRefusesIsAnError() throws {
    let driver = try StepDriver(.logout(), settings: Self.settings).started()
    #expect(
      driver.json(#"{"error": "invalid_client"}"#, status: 401)
        == .error("the revocation endpoint refused the client; check settings client_id and client_secret (invalid_client)"))
    let down = try StepDriver(.logout(), settings: Self.settings).started()
    #expect(down.answer(503, "busy") == .error(#"the revocation endpoint answered HTTP 503: "busy""#))
  }

  @Test func logoutWithNothingToRevokeSendsNothing() throws {
    #expect(try StepDriver(.logout(token: ""), settings: Self.settings).start() == .ok(Done()))
    // With client credentials the secret is the account's password, which logout is not given.
    let client = try StepDriver(.logout(), settings: settings(["grant": "client_credentials"]))
    #expect(
      client.start()
        == .ok(Done(message: "the token stays valid until it expires: revoking it needs the client secret (the account's password), which logout is not given")))
  }

  @Test func callSendsTheBearerToTheAPI() throws {
    let get = try StepDriver(.call("get", "/users/me", [("q", "a b&c"), ("page", "2")]), settings: Self.settings)
    let sent = try #require(get.start().sent)
    #expect(sent.method == "GET" && sent.url == "https://api.example/v1/users/me?q=a%20b%26c&page=2" && sent.body.isEmpty)
    #expect(sent.headers == ["Authorization": "Bearer at-1"])
    #expect(get.answer(200, #"{"id": 42}"#) == .ok(Done(body: #"{"id": 42}"#)))

    let post = try StepDriver(.call("POST", "notes", [("text", "hi there")]), settings: Self.settings)
    let posted = try #require(post.start().sent)
    #expect(posted.url == "https://api.example/v1/notes" && posted.body == "text=hi%20there")
    #expect(posted.headers == ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer at-1"])
    #expect(post.answer(204) == .ok(Done()))

    let delete = try StepDriver(.call("DELETE", "notes/1", [("force", "1")]), settings: Self.settings)
    #expect(delete.start().sent?.url == "https://api.example/v1/notes/1?force=1")
  }

  @Test(arguments: [
    (Int32(401), "", Step.sessionExpired("the API refused the token (HTTP 401)")),
    (404, #"{"detail": "Not found."}"#, .error(#"the API answered HTTP 404 (application/json): "{\"detail\": \"Not found.\"}""#)),
    (302, "", .error("the API answered with a redirect (HTTP 302), which accounts does not follow; check api_base (https instead of http? the right path?)")),
  ])
  func callAnswersThatAreNotTheBody(status: Int32, body: String, result: Step) throws {
    let driver = try StepDriver(.call("GET", "x"), settings: Self.settings).started()
    #expect(driver.answer(status, body, headers: body.isEmpty ? [:] : ["content-type": "application/json"]) == result)
  }

  @Test func callNeedsAnAPIBaseAndAToken() throws {
    var settings = Self.settings
    settings["api_base"] = nil
    #expect(
      try StepDriver(.call("GET", "x"), settings: settings).start()
        == .error("setting api_base is missing; accounts request needs it: the API's base URL, e.g. https://api.example.com"))
    #expect(
      try StepDriver(.call("GET", "x", token: ""), settings: Self.settings).start()
        == .sessionExpired("the session has no access token; log in again"))
    #expect(
      try StepDriver(.call("GET", "x", token: "a\nb"), settings: Self.settings).start()
        == .error("the stored token contains control characters; log in again"))
  }
}
