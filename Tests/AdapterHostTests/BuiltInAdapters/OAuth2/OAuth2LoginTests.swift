import CAccountsAdapter
import Foundation
import Testing

@testable import AdapterHost

/// The oauth2 adapter's LOGIN with the password and client credentials grants, and how it
/// reads token endpoint answers, good and bad; the .so driven step by step with canned answers.
@Suite struct OAuth2LoginTests {
  static let settings = [
    "token_endpoint": "https://id.example/o/token/", "client_id": "qa cli", "client_secret": "s3:cr/t",
    "scope": "openid profile",
  ]
  static let form = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]

  func login(_ settings: [String: String] = settings, user: String = "alice", password: String = "pw 1&2") throws
    -> StepDriver
  {
    try StepDriver(.login(user: user, password: password), settings: settings)
  }

  @Test func thePasswordGrantPostsTheUserWithTheClientInBasicAuthentication() throws {
    let driver = try login()
    let sent = try #require(driver.start().sent)
    #expect(sent.method == "POST" && sent.url == "https://id.example/o/token/" && sent.delay == 0)
    #expect(sent.form == ["grant_type=password", "username=alice", "password=pw 1&2", "scope=openid profile"])
    // RFC 6749 §2.3.1: id and secret form-encoded before base64.
    #expect(sent.headers == Self.form.merging(["Authorization": "Basic " + Data("qa%20cli:s3%3Acr%2Ft".utf8).base64EncodedString()]) { $1 })
    #expect(sent.basic?.id == "qa cli" && sent.basic?.secret == "s3:cr/t")
    let ok = driver.json(#"{"access_token": "at-1", "token_type": "Bearer", "expires_in": 300, "refresh_token": "rt-1"}"#)
    #expect(ok == .ok(Done(token: "at-1", expiresIn: 300, refreshToken: "rt-1")))
  }

  @Test func aPublicClientNamesItselfInTheBody() throws {
    var settings = Self.settings
    settings["client_secret"] = nil
    settings["scope"] = nil
    let sent = try #require(try login(settings).start().sent)
    #expect(sent.form == ["grant_type=password", "username=alice", "password=pw 1&2", "client_id=qa cli"])
    #expect(sent.headers["Authorization"] == nil)
  }

  /// Auth0 and others want the API the token is for: `audience` goes beside the scope, in
  /// every grant that starts a session, and never in a refresh.
  @Test func anAudienceGoesWithEveryNewGrant() throws {
    var settings = Self.settings
    settings["audience"] = "https://api.example.com"
    let sent = try #require(try login(settings).start().sent)
    #expect(sent.form == ["grant_type=password", "username=alice", "password=pw 1&2", "scope=openid profile", "audience=https://api.example.com"])
    settings["grant"] = "client_credentials"
    let service = try #require(try login(settings, user: "svc").start().sent)
    #expect(service.form.contains("audience=https://api.example.com"))
    let refresh = try #require(try StepDriver(.refresh("rt-1"), settings: settings).start().sent)
    #expect(!refresh.form.contains { $0.hasPrefix("audience=") })
  }

  /// A provider that quotes the Authorization header back does not get the client's
  /// credentials onto the terminal.
  @Test func echoedBasicCredentialsAreCutOutOfTheMessage() throws {
    let driver = try login().started()
    let echoed = Data("qa%20cli:s3%3Acr%2Ft".utf8).base64EncodedString()
    let step = driver.json(#"{"error": "invalid_client", "error_description": "bad Authorization: Basic \#(echoed)"}"#, status: 401)
    #expect(!"\(step)".contains(echoed), "\(step)")
    #expect("\(step)".contains("invalid_client"), "\(step)")
  }

  @Test func aRejectedPasswordIsAWrongPassword() throws {
    let driver = try login().started()
    #expect(
      driver.json(#"{"error": "invalid_grant", "error_description": "Invalid credentials given."}"#, status: 400)
        == .wrongPassword("the provider rejected the user name or password (invalid_grant: Invalid credentials given.)"))
  }

  /// The account is the client: its user name the id, its password the secret.
  @Test func clientCredentialsAuthenticateAsTheAccount() throws {
    let driver = try login(
      ["token_endpoint": "https://id.example/o/token/", "scope": "api", "grant": "client_credentials"], user: "svc-7",
      password: "c:s 1")
    let sent = try #require(driver.start().sent)
    #expect(sent.form == ["grant_type=client_credentials", "scope=api"])
    #expect(sent.basic?.id == "svc-7" && sent.basic?.secret == "c:s 1")
    // It renews with its own secret: a refresh token would be one more secret, of no use.
    let ok = driver.json(#"{"access_token": "at-1", "token_type": "bearer", "expires_in": 60, "refresh_token": "rt-1"}"#)
    #expect(ok == .ok(Done(token: "at-1", expiresIn: 60)))
  }

  @Test func aRejectedClientSecretIsTheAccountsWrongPasswordWithClientCredentials() throws {
    let driver = try login(["token_endpoint": "https://id.example/o/token/", "grant": "client_credentials"], user: "svc-7", password: "x").started()
    #expect(
      driver.json(#"{"error": "invalid_client"}"#, status: 401)
        == .wrongPassword("the provider rejected the client id or secret, the account's user name and password (invalid_client)"))
  }

  @Test func aRejectedClientNamesItsSettings() throws {
    let invalid = try login().started()
    #expect(
      invalid.json(#"{"error": "invalid_client", "error_description": "Client authentication failed"}"#, status: 401)
        == .error("the provider rejected the client (invalid_client: Client authentication failed); check settings client_id and client_secret"))
    // A 401 without an OAuth error is the same: the client's authentication failed.
    let bare = try login().started()
    #expect(
      bare.answer(401, "<html>Unauthorized</html>", headers: ["content-type": "text/html"])
        == .error("the provider rejected the client (invalid_client: HTTP 401 without an OAuth error); check settings client_id and client_secret"))
    let unauthorized = try login().started()
    #expect(
      unauthorized.json(#"{"error": "unauthorized_client"}"#, status: 400)
        == .error("the provider does not allow this client grant password (unauthorized_client); allow it for the client at the provider, or check setting client_id"))
  }

  @Test func otherErrorsAreTheProvidersOwnWordsOnOneLine() throws {
    let driver = try login().started()
    let description = "Scope \\\"admin\\\" is\\u001b[2J unknown\\nreally " + String(repeating: "x", count: 400)
    guard case .error(let message) = driver.json(#"{"error": "invalid_scope", "error_description": "\#(description)"}"#, status: 400) else {
      Issue.record("not an error")
      return
    }
    #expect(message.hasPrefix("provider: invalid_scope: Scope \"admin\" is [2J unknown really xxx"))
    #expect(message.hasSuffix("x…"), "bounded")
    #expect(message.count < 330)
  }

  @Test(arguments: [
    (#"{"token_type": "Bearer"}"#, "the provider's token reply has no access_token (found none)"),
    (#"{"access_token": ""}"#, "the provider's token reply has no access_token (found an empty string)"),
    (#"{"access_token": 42}"#, "the provider's token reply has no access_token (found a number)"),
    (#"{"access_token": "a\nb"}"#, "the provider's access token contains control or non-ASCII characters"),
    (#"{"access_token": "at", "token_type": "mac"}"#, "the provider issued a token of type \"mac\", not Bearer; accounts sends bearer tokens only"),
    (#"{"access_token": "at", "token_type": 1}"#, "the provider issued a token of type a number, not Bearer; accounts sends bearer tokens only"),
    (#"{"access_token": "at", "expires_in": "soon"}"#, "the provider's token reply has expires_in \"soon\", expected a number of seconds"),
    (#"{"access_token": "at", "expires_in": -5}"#, "the provider's token reply has expires_in \"-5\", expected a number of seconds"),
    (#"{"access_token": "at", "expires_in": true}"#, "the provider's token reply has a boolean in expires_in, expected a number of seconds"),
    (#"{"access_token": "at", "refresh_token": 7}"#, "the provider's token reply has a number in refresh_token, expected a string"),
    (#"{"access_token": "at", "refresh_token": "r\u0007t"}"#, "the provider's refresh token contains control or non-ASCII characters"),
  ])
  func tokenRepliesThatAreRefused(body: String, message: String) throws {
    let driver = try login().started()
    #expect(driver.json(body) == .error(message))
  }

  @Test(arguments: [
    (#"{"access_token": "at", "token_type": "BEARER", "expires_in": "3600"}"#, 3600 as Int64),
    (#"{"access_token": "at", "token_type": "bearer", "expires_in": 299.9}"#, 299),
    (#"{"access_token": "at", "expires_in": null}"#, 0),
    (#"{"access_token": "at"}"#, 0),
  ])
  func tokenRepliesThatAreTaken(body: String, expiresIn: Int64) throws {
    let driver = try login().started()
    #expect(driver.json(body) == .ok(Done(token: "at", expiresIn: expiresIn)))
  }

  @Test(arguments: [
    (Int32(502), ["content-type": "text/html"], "<html>\n  <body>Bad Gateway</body>\n</html>",
     #"the token endpoint answered HTTP 502 (text/html): "<html> <body>Bad Gateway</body> </html>", not JSON"#),
    (200, [:], "", "the token endpoint answered HTTP 200 with an empty body, not JSON"),
    (200, ["content-type": "application/json"], "[1, 2]", #"the token endpoint answered HTTP 200 (application/json): "[1, 2]", not a JSON object"#),
    (500, ["content-type": "application/json"], #"{"detail": "oops"}"#,
     #"the token endpoint answered HTTP 500 (application/json): "{\"detail\": \"oops\"}" without an OAuth error"#),
    (302, ["location": "https://id.example/login?next=x"], "",
     "the token endpoint answered with a redirect (HTTP 302) to https://id.example/login, which accounts does not follow; check token_endpoint (https instead of http? the right path?)"),
  ])
  func unreadableAnswersSayWhatCame(status: Int32, headers: [String: String], body: String, message: String) throws {
    let driver = try login().started()
    #expect(driver.answer(status, body, headers: headers) == .error(message))
  }

  /// A server that echoes the request back must not get the password or the client secret onto
  /// the terminal, as they are or form-encoded.
  @Test func secretsTheProviderEchoesAreCutOut() throws {
    let echo = try login()
    let sent = try #require(echo.start().sent)
    guard case .error(let page) = echo.answer(400, sent.body + " s3:cr/t", headers: ["content-type": "text/plain"]) else {
      Issue.record("not an error")
      return
    }
    #expect(page == #"the token endpoint answered HTTP 400 (text/plain): "grant_type=password&username=alice&password=…&scope=openid%20profile …", not JSON"#)
    let described = try login().started()
    #expect(
      described.json(#"{"error": "invalid_request", "error_description": "password pw 1&2 is not allowed"}"#, status: 400)
        == .error("provider: invalid_request: password … is not allowed"))
  }
}
