import Foundation
import TestSupport
import Testing

/// The OAuth provider of the oauth2 adapter's tests (django-oauth-toolkit, `OAuthProvider`),
/// spoken to with curl alone, without accounts: the facts about it those tests build on. Each
/// test has users and clients of its own on the suite's one provider.
@Suite(.blocking, .oauthProvider()) struct OAuthProviderTests {
  let provider: OAuthProvider

  init() throws {
    provider = try #require(OAuthProvider.current)
  }

  /// A user NAME (password pw-NAME) and a confidential password-grant client NAME-app.
  private func userWithClient(_ name: String) throws -> OAuthProvider.Client {
    try provider.addUser(name, password: "pw-" + name)
    return try provider.addClient(name + "-app", grant: .password)
  }

  private func token(_ client: OAuthProvider.Client, _ form: [String: String]) throws -> HTTPReply {
    try LoopbackHTTP.post(
      provider.tokenEndpoint, form: form, user: (client.id, client.secret ?? ""))
  }

  private func passwordGrant(_ client: OAuthProvider.Client, _ user: String, _ password: String)
    throws -> HTTPReply
  {
    try token(client, ["grant_type": "password", "username": user, "password": password])
  }

  /// Introspected by a resource server of its own (client credentials of a confidential client).
  private func introspect(_ token: String) throws -> [String: Any] {
    let server = try provider.addClient(
      "rs-\(UUID().uuidString.prefix(8))", grant: .clientCredentials)
    let reply = try LoopbackHTTP.post(
      provider.introspectionEndpoint, form: ["token": token], user: (server.id, server.secret ?? "")
    )
    #expect(reply.status == 200, "\(reply)")
    return reply.json ?? [:]
  }

  @Test func discoveryNamesTheEndpointsOnTheIssuersBase() throws {
    let discovery = try LoopbackHTTP.get(provider.discoveryURL)
    #expect(discovery.status == 200, "\(discovery)")
    #expect(
      discovery["issuer"] == provider.issuer && provider.issuer.hasPrefix("http://127.0.0.1:"))
    #expect(discovery["token_endpoint"] == provider.tokenEndpoint, "\(discovery)")
    #expect(discovery["userinfo_endpoint"] == provider.userinfoEndpoint, "\(discovery)")
    #expect(
      (discovery.json?["id_token_signing_alg_values_supported"] as? [String])?.contains("RS256")
        == true)
    let keys = try LoopbackHTTP.get(try #require(discovery["jwks_uri"]))
    #expect((keys.json?["keys"] as? [[String: Any]])?.first?["kty"] as? String == "RSA", "\(keys)")
    // RFC 8414's metadata names what OIDC discovery does not, under the issuer and at the root.
    for url in [provider.metadataURL, provider.rootMetadataURL] {
      let metadata = try LoopbackHTTP.get(url)
      #expect(metadata["issuer"] == provider.issuer, "\(url): \(metadata)")
      #expect(metadata["token_endpoint"] == provider.tokenEndpoint, "\(metadata)")
      #expect(metadata["revocation_endpoint"] == provider.revocationEndpoint, "\(metadata)")
      #expect(metadata["introspection_endpoint"] == provider.introspectionEndpoint, "\(metadata)")
      #expect(
        metadata.json?["device_authorization_endpoint"] == nil,
        "DOT 3.4.1 names it nowhere: \(metadata)")
    }
    #expect(
      discovery.json?["revocation_endpoint"] == nil
        && discovery.json?["device_authorization_endpoint"] == nil)
  }

  @Test func passwordGrantGivesTokensWhoseRefreshRotates() throws {
    let client = try userWithClient("paula")
    let first = try passwordGrant(client, "paula", "pw-paula")
    #expect(first.status == 200, "\(first)")
    #expect(first.json?["expires_in"] as? Int == provider.accessTokenLifetime, "\(first)")
    #expect(
      first["token_type"] == "Bearer" && first["scope"] == "openid profile read write", "\(first)")
    let access = try #require(first["access_token"])
    let refresh = try #require(first["refresh_token"])
    var live = try provider.liveTokens(of: "paula")
    #expect(
      live.access.map(\.token) == [access] && live.refresh.map(\.token) == [refresh], "\(live)")
    #expect(live.refresh.first?.accessToken == access && live.access.first?.clientID == client.id)

    let second = try token(client, ["grant_type": "refresh_token", "refresh_token": refresh])
    #expect(second.status == 200, "\(second)")
    let renewed = try #require(second["access_token"])
    let rotated = try #require(second["refresh_token"])
    #expect(renewed != access && rotated != refresh)
    #expect(
      second["id_token"]?.split(separator: ".").count == 3,
      "a refresh with openid gets a signed ID token")
    live = try provider.liveTokens(of: "paula")
    #expect(
      live.access.map(\.token) == [renewed] && live.refresh.map(\.token) == [rotated],
      "the old pair is gone: \(live)")
    #expect(try introspect(access)["active"] as? Bool == false)

    let again = try token(client, ["grant_type": "refresh_token", "refresh_token": refresh])
    #expect(
      again.status == 400 && again["error"] == "invalid_grant",
      "a rotated refresh token is refused: \(again)")
  }

  @Test func wrongPasswordsAndSecretsAreRefusedAsTheRFCSays() throws {
    let client = try userWithClient("wanda")
    let wrong = try passwordGrant(client, "wanda", "not-hers")
    #expect(wrong.status == 400 && wrong["error"] == "invalid_grant", "\(wrong)")
    let nobody = try passwordGrant(client, "nobody", "pw-nobody")
    #expect(nobody.status == 400 && nobody["error"] == "invalid_grant", "\(nobody)")
    let badSecret = try passwordGrant(
      OAuthProvider.Client(id: client.id, secret: "wrong"), "wanda", "pw-wanda")
    #expect(badSecret.status == 401 && badSecret["error"] == "invalid_client", "\(badSecret)")
    let badScope = try token(
      client,
      ["grant_type": "password", "username": "wanda", "password": "pw-wanda", "scope": "admin"])
    #expect(badScope.status == 400 && badScope["error"] == "invalid_scope", "\(badScope)")
    let otherGrant = try token(client, ["grant_type": "client_credentials"])
    #expect(
      otherGrant.status == 400 && otherGrant["error"] == "unauthorized_client", "\(otherGrant)")
    #expect(try provider.liveTokens(of: "wanda").isEmpty)
  }

  @Test func aChangedPasswordLeavesTheRefreshTokenWorking() throws {
    let client = try userWithClient("chris")
    let login = try passwordGrant(client, "chris", "pw-chris")
    try provider.setPassword(of: "chris", to: "new-chris")
    let old = try passwordGrant(client, "chris", "pw-chris")
    #expect(old.status == 400 && old["error"] == "invalid_grant", "\(old)")
    let refreshed = try token(
      client,
      ["grant_type": "refresh_token", "refresh_token": try #require(login["refresh_token"])])
    #expect(refreshed.status == 200 && refreshed["access_token"] != nil, "\(refreshed)")
    #expect(try passwordGrant(client, "chris", "new-chris").status == 200)
  }

  @Test func revokingTheRefreshTokenEndsBothForIntrospectionAndUserinfo() throws {
    let client = try userWithClient("rita")
    let login = try passwordGrant(client, "rita", "pw-rita")
    let access = try #require(login["access_token"])
    let refresh = try #require(login["refresh_token"])
    let active = try introspect(access)
    #expect(
      active["active"] as? Bool == true && active["username"] as? String == "rita", "\(active)")
    #expect(active["client_id"] as? String == client.id && active["exp"] is Int, "\(active)")
    let userinfo = try LoopbackHTTP.get(
      provider.userinfoEndpoint, headers: ["Authorization: Bearer " + access])
    #expect(
      userinfo.status == 200 && userinfo["preferred_username"] == "rita" && userinfo["sub"] != nil,
      "\(userinfo)")

    let revoked = try LoopbackHTTP.post(
      provider.revocationEndpoint, form: ["token": refresh, "token_type_hint": "refresh_token"],
      user: (client.id, client.secret ?? ""))
    #expect(revoked.status == 200, "\(revoked)")
    #expect(try introspect(access)["active"] as? Bool == false, "its access token went with it")
    let ended = try LoopbackHTTP.get(
      provider.userinfoEndpoint, headers: ["Authorization: Bearer " + access])
    #expect(ended.status == 401 && ended["error"] == "invalid_token", "\(ended)")
    let refused = try token(client, ["grant_type": "refresh_token", "refresh_token": refresh])
    #expect(refused.status == 400 && refused["error"] == "invalid_grant", "\(refused)")
    #expect(try provider.liveTokens(of: "rita").isEmpty)
  }

  /// RFC 7009 lets a server revoke the refresh token with its access token, and DOT 3.4.1 does.
  @Test func revokingAnAccessTokenEndsItsRefreshTokenToo() throws {
    let client = try userWithClient("alex")
    let login = try passwordGrant(client, "alex", "pw-alex")
    let access = try #require(login["access_token"])
    let revoked = try LoopbackHTTP.post(
      provider.revocationEndpoint, form: ["token": access], user: (client.id, client.secret ?? ""))
    #expect(revoked.status == 200, "\(revoked)")
    #expect(try introspect(access)["active"] as? Bool == false)
    #expect(try provider.liveTokens(of: "alex").isEmpty)
    let refused = try token(
      client,
      ["grant_type": "refresh_token", "refresh_token": try #require(login["refresh_token"])])
    #expect(refused.status == 400 && refused["error"] == "invalid_grant", "\(refused)")
    let again = try LoopbackHTTP.post(
      provider.revocationEndpoint,
      form: ["token": try #require(login["refresh_token"]), "token_type_hint": "refresh_token"],
      user: (client.id, client.secret ?? ""))
    #expect(again.status == 200, "revoking what is revoked already is no error: \(again)")
  }

  @Test func revokingAUsersTokensAtTheServerEndsThemAll() throws {
    let client = try userWithClient("sam")
    let logins = try (0..<2).map { _ in try passwordGrant(client, "sam", "pw-sam") }
    #expect(try provider.liveTokens(of: "sam").refresh.count == 2)
    try provider.revokeTokens(of: "sam")
    #expect(try provider.liveTokens(of: "sam").isEmpty)
    for login in logins {
      #expect(try introspect(try #require(login["access_token"]))["active"] as? Bool == false)
      let refused = try token(
        client,
        ["grant_type": "refresh_token", "refresh_token": try #require(login["refresh_token"])])
      #expect(refused["error"] == "invalid_grant", "\(refused)")
    }
  }

  @Test func clientCredentialsGiveAnAccessTokenWithoutRefreshToken() throws {
    let service = try provider.addClient("service-app", grant: .clientCredentials)
    let reply = try token(service, ["grant_type": "client_credentials"])
    #expect(reply.status == 200 && reply["refresh_token"] == nil, "\(reply)")
    let access = try #require(reply["access_token"])
    let live = try provider.liveTokens(ofClient: service.id)
    #expect(live.access.map(\.token) == [access] && live.refresh.isEmpty, "\(live)")
    let seen = try introspect(access)
    #expect(
      seen["active"] as? Bool == true && seen["username"] == nil
        && seen["client_id"] as? String == service.id)
    try provider.revokeTokens(ofClient: service.id)
    #expect(try provider.liveTokens(ofClient: service.id).isEmpty)
  }

  // MARK: - The device authorization grant

  private func deviceAuthorization(_ client: OAuthProvider.Client) throws -> (
    deviceCode: String, userCode: String
  ) {
    let reply = try LoopbackHTTP.post(
      provider.deviceAuthorizationEndpoint, form: ["client_id": client.id])
    #expect(reply.status == 200, "\(reply)")
    #expect(reply["verification_uri"] == provider.verificationURI, "\(reply)")
    #expect(
      reply.json?["interval"] as? Int == 1 && reply.json?["expires_in"] as? Int == 1800, "\(reply)")
    let userCode = try #require(reply["user_code"])
    #expect(
      reply["verification_uri_complete"] == provider.verificationURI + "?user_code=" + userCode)
    return (try #require(reply["device_code"]), userCode)
  }

  private func poll(_ client: OAuthProvider.Client, _ deviceCode: String) throws -> HTTPReply {
    try LoopbackHTTP.post(
      provider.tokenEndpoint,
      form: [
        "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": deviceCode,
        "client_id": client.id,
      ])
  }

  @Test func aDeviceCodeApprovedByThePersonYieldsTheirTokens() throws {
    try provider.addUser("devi", password: "pw-devi")
    let device = try provider.addClient("devi-cli", grant: .deviceCode, confidential: false)
    #expect(device.secret == nil)
    let (deviceCode, userCode) = try deviceAuthorization(device)
    let pending = try poll(device, deviceCode)
    #expect(pending.status == 400 && pending["error"] == "authorization_pending", "\(pending)")

    try provider.approveDevice(userCode: userCode, as: "devi")
    let approved = try poll(device, deviceCode)
    #expect(approved.status == 200 && approved["refresh_token"] != nil, "\(approved)")
    let access = try #require(approved["access_token"])
    #expect(try introspect(access)["username"] as? String == "devi")
    #expect(try provider.liveTokens(of: "devi").access.map(\.token) == [access])
    // A public client refreshes with its id alone.
    let refreshed = try LoopbackHTTP.post(
      provider.tokenEndpoint,
      form: [
        "grant_type": "refresh_token", "refresh_token": try #require(approved["refresh_token"]),
        "client_id": device.id,
      ])
    #expect(refreshed.status == 200, "\(refreshed)")
    #expect(throws: OAuthProviderError.self, "a decided code cannot be decided again") {
      try provider.approveDevice(userCode: userCode, as: "devi")
    }
  }

  @Test func aDeniedDeviceCodeYieldsAccessDeniedAndAnExpiredOneExpiredToken() throws {
    try provider.addUser("dora", password: "pw-dora")
    let device = try provider.addClient("dora-cli", grant: .deviceCode, confidential: false)
    let denied = try deviceAuthorization(device)
    try provider.denyDevice(userCode: denied.userCode, as: "dora")
    let refusal = try poll(device, denied.deviceCode)
    #expect(refusal.status == 400 && refusal["error"] == "access_denied", "\(refusal)")

    let expired = try deviceAuthorization(device)
    try provider.expireDeviceCode(userCode: expired.userCode)
    let late = try poll(device, expired.deviceCode)
    #expect(late.status == 400 && late["error"] == "expired_token", "\(late)")
    let error = #expect(throws: OAuthProviderError.self) {
      try provider.approveDevice(userCode: expired.userCode, as: "dora")
    }
    #expect(
      "\(error.map { "\($0)" } ?? "")".contains("Expired user code"), "DOT's device page says why")
    #expect(try provider.liveTokens(of: "dora").isEmpty)
  }

  @Test func theDeviceEndpointRefusesAContentTypeWithACharset() throws {
    let device = try provider.addClient("charset-cli", grant: .deviceCode, confidential: false)
    let reply = try LoopbackHTTP.post(
      provider.deviceAuthorizationEndpoint, form: ["client_id": device.id],
      headers: ["Content-Type: application/x-www-form-urlencoded; charset=utf-8"])
    #expect(
      reply.status == 400 && reply["error"] == "invalid_request",
      "oauthlib 3.3.1 compares it whole: \(reply)")
  }

  // MARK: - The helper itself

  @Test func theAdministrationAnswersOnlyTheTestsToken() throws {
    let reply = try LoopbackHTTP.post(
      provider.baseURL + "/test-admin/users", json: ["username": "mallory", "password": "x"],
      headers: ["X-Test-Admin-Token: guess"])
    #expect(reply.status == 403, "\(reply)")
    #expect(throws: OAuthProviderError.self) { try provider.liveTokens(of: "mallory") }
  }

  @Test func accessTokensEndAfterTheLifetimeTheTestSets() throws {
    let short = try OAuthProvider(accessTokenLifetime: 1)
    defer { short.stop() }
    try short.addUser("tess", password: "pw-tess")
    let client = try short.addClient("tess-app", grant: .password)
    let login = try LoopbackHTTP.post(
      short.tokenEndpoint,
      form: ["grant_type": "password", "username": "tess", "password": "pw-tess"],
      user: (client.id, client.secret ?? ""))
    #expect(login.json?["expires_in"] as? Int == 1, "\(login)")
    let access = try #require(login["access_token"])
    let expires = try #require(try short.liveTokens(of: "tess").access.first?.expires)
    // Waits past the expiry the server recorded, in whole seconds (6 s at most): then the token
    // has ended, however slow the machine.
    for _ in 0..<60 where Date() <= expires.addingTimeInterval(1) { usleep(100_000) }
    let userinfo = try LoopbackHTTP.get(
      short.userinfoEndpoint, headers: ["Authorization: Bearer " + access])
    #expect(userinfo.status == 401, "\(userinfo)")
    let live = try short.liveTokens(of: "tess")
    #expect(
      live.access.isEmpty && live.refresh.count == 1,
      "an expired access token is not live; its refresh token is: \(live)")
  }

  @Test func withoutItsEnvironmentTheProviderFailsNamingSetup() throws {
    // A copy of the launcher in a tree without .build/oauth-provider.
    let tree = NSTemporaryDirectory() + "accounts-no-provider-\(UUID().uuidString.prefix(8))"
    defer { try? FileManager.default.removeItem(atPath: tree) }
    for folder in ["scripts", "Tests/OAuthProvider"] {
      try FileManager.default.createDirectory(
        atPath: tree + "/" + folder, withIntermediateDirectories: true)
    }
    try FileManager.default.copyItem(
      atPath: PackagePaths.script("oauth-provider"), toPath: tree + "/scripts/oauth-provider")
    try FileManager.default.copyItem(
      atPath: PackagePaths.root.appendingPathComponent("Tests/OAuthProvider/requirements.txt").path,
      toPath: tree + "/Tests/OAuthProvider/requirements.txt")
    let error = #expect(throws: OAuthProviderError.self) {
      try OAuthProvider(launcher: tree + "/scripts/oauth-provider")
    }
    let message = error.map { "\($0)" } ?? ""
    #expect(
      message.contains("exit 127") && message.contains("run scripts/setup --test"), "\(message)")
  }
}
