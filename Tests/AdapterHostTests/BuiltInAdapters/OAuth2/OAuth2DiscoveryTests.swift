import CAccountsAdapter
import Testing

@testable import AdapterHost

/// Endpoints from the issuer: OpenID Connect discovery, else RFC 8414's metadata; the settings'
/// own endpoints win, and what LOGIN discovered is kept in session values for later operations.
@Suite struct OAuth2DiscoveryTests {
  static let issuer = "https://id.example/realms/qa"
  static let settings = ["issuer": issuer, "client_id": "qa", "client_secret": "sec"]
  static let openID = "https://id.example/realms/qa/.well-known/openid-configuration"
  static let metadata = "https://id.example/.well-known/oauth-authorization-server/realms/qa"
  static let endpoints = [
    "token_endpoint": "https://id.example/realms/qa/token",
    "device_authorization_endpoint": "https://id.example/realms/qa/device",
    "revocation_endpoint": "https://id.example/realms/qa/revoke",
    "introspection_endpoint": "https://id.example/realms/qa/introspect",
    "userinfo_endpoint": "https://id.example/realms/qa/userinfo",
  ]
  static let token = #"{"access_token": "at-1", "token_type": "Bearer", "expires_in": 300, "refresh_token": "rt-1"}"#

  static func document(issuer: String = issuer, _ endpoints: [String: String] = endpoints) -> String {
    let members = endpoints.sorted { $0.key < $1.key }.map { #""\#($0.key)": "\#($0.value)""# }
    return #"{"issuer": "\#(issuer)", \#(members.joined(separator: ", ")), "jwks_uri": "https://id.example/jwks"}"#
  }

  @Test func loginDiscoversThenKeepsTheEndpointsForLater() throws {
    let driver = try StepDriver(.login(), settings: Self.settings)
    let discovery = try #require(driver.start().sent)
    #expect(discovery.method == "GET" && discovery.url == Self.openID && discovery.headers == ["Accept": "application/json"])
    let login = try #require(driver.json(Self.document()).sent)
    #expect(login.method == "POST" && login.url == "https://id.example/realms/qa/token")
    #expect(login.form == ["grant_type=password", "username=alice", "password=pw 1&2"])
    #expect(
      driver.json(Self.token)
        == .ok(Done(token: "at-1", expiresIn: 300, sessionValues: Self.endpoints.merging(["issuer": Self.issuer]) { $1 }, refreshToken: "rt-1")))
  }

  /// An https issuer's document cannot send the password over plain http, to this machine
  /// either (whatever listens on its port).
  @Test func anHTTPSIssuersDocumentCannotNameAPlainHTTPEndpoint() throws {
    let driver = try StepDriver(.login(), settings: Self.settings)
    _ = driver.start()
    let step = driver.json(Self.document(Self.endpoints.merging(["token_endpoint": "http://127.0.0.1:8080/token"]) { $1 }))
    #expect(step.sent == nil, "nothing sent: \(step)")
    #expect("\(step)".contains("is plain http:// while the issuer is https://"), "\(step)")
  }

  @Test func aProviderWithoutOpenIDConnectIsFoundByItsMetadata() throws {
    let driver = try StepDriver(.login(), settings: Self.settings).started()
    let metadata = try #require(driver.answer(404, "<h1>Not Found</h1>", headers: ["content-type": "text/html"]).sent)
    #expect(metadata.method == "GET" && metadata.url == Self.metadata)
    #expect(try #require(driver.json(Self.document(["token_endpoint": "https://id.example/t"])).sent).url == "https://id.example/t")
    #expect(driver.json(Self.token) == .ok(Done(token: "at-1", expiresIn: 300, sessionValues: ["issuer": Self.issuer, "token_endpoint": "https://id.example/t"], refreshToken: "rt-1")))
  }

  @Test func anIssuerWithoutAPathHasItsMetadataAtTheRoot() throws {
    let driver = try StepDriver(.login(), settings: ["issuer": "https://id.example/", "client_id": "qa"])
    #expect(driver.start().sent?.url == "https://id.example/.well-known/openid-configuration")
    #expect(driver.answer(404).sent?.url == "https://id.example/.well-known/oauth-authorization-server")
  }

  @Test func noDocumentAnywhereSaysWhatBothPlacesAnswered() throws {
    let driver = try StepDriver(.login(), settings: Self.settings).started()
    _ = driver.answer(404, "<h1>Not Found</h1>", headers: ["content-type": "text/html"])
    #expect(
      driver.answer(200, "")
        == .error(
          #"found no discovery document for issuer "https://id.example/realms/qa": \#(Self.openID) answered HTTP 404 (text/html): "<h1>Not Found</h1>"; \#(Self.metadata) answered HTTP 200 with an empty body; check setting issuer, or give the endpoints one by one"#))
  }

  /// OIDC Discovery §4.3: whoever answers for the issuer's host may not name another issuer.
  @Test func aDocumentOfAnotherIssuerIsRefused() throws {
    let driver = try StepDriver(.login(), settings: Self.settings).started()
    #expect(
      driver.json(Self.document(issuer: "https://evil.example/realms/qa"))
        == .error(
          #"the discovery document \#(Self.openID) names issuer "https://evil.example/realms/qa", not the setting's "https://id.example/realms/qa"; set issuer to exactly the provider's, or give the endpoints one by one"#))
    let unnamed = try StepDriver(.login(), settings: Self.settings).started()
    #expect(
      unnamed.json(#"{"token_endpoint": "https://id.example/t"}"#)
        == .error("the discovery document \(Self.openID) names no issuer; check setting issuer, or give the endpoints one by one"))
  }

  @Test func theSettingsEndpointsWinAndSpareTheDiscovery() throws {
    let explicit = try StepDriver(.login(), settings: Self.settings.merging(["token_endpoint": "https://id.example/mine"]) { $1 })
    #expect(explicit.start().sent?.url == "https://id.example/mine", "no discovery: nothing else is needed")
    // The device flow needs two: the one not given is discovered, the given one is used.
    let device = try StepDriver(
      .login(password: ""), settings: Self.settings.merging(["token_endpoint": "https://id.example/mine", "grant": "device_code"]) { $1 })
    #expect(device.start().sent?.url == Self.openID)
    #expect(device.json(Self.document()).sent?.url == "https://id.example/realms/qa/device")
    _ = device.json(#"{"device_code": "dc-1", "user_code": "U", "verification_uri": "https://id.example/d", "expires_in": 60}"#)
    #expect(device.afterShowing().sent?.url == "https://id.example/mine")
  }

  @Test func endpointsKeptFromLoginSpareTheDiscoveryWhileTheIssuerIsTheSame() throws {
    let kept = Self.endpoints.merging(["issuer": Self.issuer]) { $1 }
    let refresh = try StepDriver(.refresh("rt-1", sessionValues: kept), settings: Self.settings)
    #expect(refresh.start().sent?.url == "https://id.example/realms/qa/token")
    #expect(
      refresh.json(#"{"access_token": "at-2"}"#) == .ok(Done(token: "at-2", sessionValues: kept)),
      "and hands them on")
    // The issuer setting changed since: what was kept is another provider's.
    let moved = try StepDriver(
      .refresh("rt-1", sessionValues: kept), settings: Self.settings.merging(["issuer": "https://id.example/realms/dev"]) { $1 })
    #expect(moved.start().sent?.url == "https://id.example/realms/dev/.well-known/openid-configuration")
  }

  @Test func aDiscoveredEndpointMustBeSafeForTheCredentials() throws {
    let revocation = ["revocation_endpoint": "https://id.example/r"]
    let insecure = try StepDriver(.login(), settings: Self.settings).started()
    #expect(
      insecure.json(Self.document(revocation.merging(["token_endpoint": "http://id.example/token"]) { $1 }))
        == .error("the provider's token_endpoint is plain http:// to \"id.example\", which is not this machine; use https://, or set allow_insecure_transport=true for a test server"))
    let broken = try StepDriver(.login(), settings: Self.settings).started()
    #expect(
      broken.json(Self.document(revocation.merging(["token_endpoint": "https://id.example/t?x=1"]) { $1 }))
        == .error("the provider's token_endpoint \"https://id.example/t?x=1\" is not an http:// or https:// URL without spaces, query or fragment; give setting token_endpoint"))
    // One the operation does not use cannot fail it.
    let unused = try StepDriver(.login(), settings: Self.settings).started()
    #expect(
      unused.json(Self.document(revocation.merging(["token_endpoint": "https://id.example/t", "userinfo_endpoint": "http://id.example/u"]) { $1 }))
        .sent?.url == "https://id.example/t")
    // On this machine plain http is fine: a test server.
    let local = try StepDriver(.login(), settings: ["issuer": "http://127.0.0.1:8000/o", "client_id": "qa"])
    #expect(local.start().sent?.url == "http://127.0.0.1:8000/o/.well-known/openid-configuration")
    #expect(
      local.json(Self.document(issuer: "http://127.0.0.1:8000/o", ["token_endpoint": "http://127.0.0.1:8000/o/token/", "revocation_endpoint": "http://127.0.0.1:8000/o/revoke_token/"]))
        .sent?.url == "http://127.0.0.1:8000/o/token/")
  }

  @Test func aDocumentWithoutTheNeededEndpointNamesTheSettingToGive() throws {
    let driver = try StepDriver(.login(), settings: Self.settings).started()
    #expect(driver.json(Self.document(["userinfo_endpoint": "https://id.example/u"])).sent?.url == Self.metadata)
    #expect(
      driver.answer(404)
        == .error("the provider's discovery document names no token_endpoint; give setting token_endpoint"))
  }

  /// django-oauth-toolkit's OIDC document names no revocation or introspection endpoint; its
  /// RFC 8414 metadata does. LOGIN looks for what later operations need too, since it keeps it.
  @Test func theMetadataFillsWhatTheOpenIDDocumentLacks() throws {
    let settings = Self.settings.merging(["check": "introspection"]) { $1 }
    let oidc = ["token_endpoint": "https://id.example/realms/qa/token", "userinfo_endpoint": "https://id.example/realms/qa/userinfo"]
    let rfc8414 = [
      "token_endpoint": "https://id.example/other-token", "revocation_endpoint": "https://id.example/revoke",
      "introspection_endpoint": "https://id.example/introspect",
    ]
    let driver = try StepDriver(.login(), settings: settings).started()
    #expect(driver.json(Self.document(oidc)).sent?.url == Self.metadata)
    #expect(driver.json(Self.document(rfc8414)).sent?.url == "https://id.example/realms/qa/token", "the first document's wins")
    #expect(
      driver.json(Self.token)
        == .ok(
          Done(
            token: "at-1", expiresIn: 300,
            sessionValues: [
              "issuer": Self.issuer, "token_endpoint": "https://id.example/realms/qa/token",
              "userinfo_endpoint": "https://id.example/realms/qa/userinfo", "revocation_endpoint": "https://id.example/revoke",
              "introspection_endpoint": "https://id.example/introspect",
            ], refreshToken: "rt-1")))

    // A second place with nothing good to add is passed over: what the first named stands.
    for (status, body) in [(Int32(404), "<h1>Not Found</h1>"), (200, Self.document(issuer: "https://evil.example", rfc8414))] {
      let passed = try StepDriver(.login(), settings: settings).started()
      _ = passed.json(Self.document(oidc))
      #expect(passed.answer(status, body).sent?.url == "https://id.example/realms/qa/token")
      #expect(
        passed.json(Self.token)
          == .ok(Done(token: "at-1", expiresIn: 300, sessionValues: oidc.merging(["issuer": Self.issuer]) { $1 }, refreshToken: "rt-1")))
    }
  }

  @Test func aRedirectedDiscoverySaysToCheckTheIssuer() throws {
    let driver = try StepDriver(.login(), settings: Self.settings).started()
    #expect(
      driver.answer(301, "", headers: ["location": "https://id.example/realms/qa/"])
        == .error("the discovery document \(Self.openID) answered with a redirect (HTTP 301) to https://id.example/realms/qa/, which accounts does not follow; check issuer (https instead of http? the right path?)"))
  }
}
