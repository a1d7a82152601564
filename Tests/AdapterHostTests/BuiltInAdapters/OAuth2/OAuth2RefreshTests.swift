import CAccountsAdapter
import Testing

@testable import AdapterHost

/// REFRESH: the refresh token for a new access token, and perhaps a new refresh token.
@Suite struct OAuth2RefreshTests {
  static let settings = [
    "token_endpoint": "https://id.example/o/token/", "client_id": "qa", "client_secret": "sec", "scope": "openid",
  ]

  @Test func aRefreshSendsTheRefreshTokenWithoutAScope() throws {
    let driver = try StepDriver(.refresh("rt 1"), settings: Self.settings)
    let sent = try #require(driver.start().sent)
    #expect(sent.url == "https://id.example/o/token/")
    #expect(sent.form == ["grant_type=refresh_token", "refresh_token=rt 1"], "the scope granted stays")
    #expect(sent.basic?.id == "qa" && sent.basic?.secret == "sec")
    #expect(
      driver.json(#"{"access_token": "at-2", "token_type": "Bearer", "expires_in": 300, "refresh_token": "rt-2"}"#)
        == .ok(Done(token: "at-2", expiresIn: 300, refreshToken: "rt-2")), "rotated: the new one comes out")
  }

  @Test func aRefreshTokenThatIsNotRotatedStaysTheHostsToKeep() throws {
    let driver = try StepDriver(.refresh("rt-1"), settings: Self.settings).started()
    #expect(driver.json(#"{"access_token": "at-2", "expires_in": 300}"#) == .ok(Done(token: "at-2", expiresIn: 300)))
  }

  @Test func aPublicClientNamesItself() throws {
    let sent = try #require(try StepDriver(.refresh("rt-1"), settings: ["token_endpoint": "https://id.example/t", "client_id": "qa"]).start().sent)
    #expect(sent.form == ["grant_type=refresh_token", "refresh_token=rt-1", "client_id=qa"])
    #expect(sent.headers["Authorization"] == nil)
  }

  /// invalid_grant on a refresh ends the refresh token, not the password: the host forgets it
  /// and falls back to the password.
  @Test func aRefusedRefreshTokenIsAnExpiredSession() throws {
    let driver = try StepDriver(.refresh("rt-1"), settings: Self.settings).started()
    #expect(
      driver.json(#"{"error": "invalid_grant", "error_description": "Token rt-1 was revoked"}"#, status: 400)
        == .sessionExpired("the provider refused the refresh token (invalid_grant: Token … was revoked)"))
  }

  @Test func aRefreshWithoutARefreshTokenSendsNothing() throws {
    #expect(
      try StepDriver(.refresh(""), settings: Self.settings).start()
        == .error("the host asked to refresh the session without a refresh token"))
  }

  @Test func theOtherBuiltInAdaptersKeepNoRefreshTokens() throws {
    let driver = try StepDriver(
      .refresh("rt-1"), settings: ["base_url": "https://api.example", "encoding": "md5"], adapter: "plain")
    #expect(driver.start() == .error("this adapter keeps no refresh tokens, so it cannot refresh a session; log in again"))
  }
}
