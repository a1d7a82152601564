import CAccountsAdapter
import Testing

@testable import AdapterHost

/// LOGIN with grant device_code (RFC 8628): the code shown, then polls at the provider's
/// interval until the person approves, denies, or the code expires.
@Suite struct OAuth2DeviceFlowTests {
  static let settings = [
    "device_authorization_endpoint": "https://id.example/o/device/", "token_endpoint": "https://id.example/o/token/",
    "client_id": "tv", "grant": "device_code", "scope": "openid",
  ]
  static let authorized = #"""
    {"device_code": "dc-1", "user_code": "WDJB-MJHT", "verification_uri": "https://id.example/device",
     "verification_uri_complete": "https://id.example/device?user_code=WDJB-MJHT", "expires_in": 1800, "interval": 2}
    """#
  static let pending = #"{"error": "authorization_pending"}"#

  func shown(_ settings: [String: String] = settings, authorization: String = authorized) throws -> (StepDriver, Step) {
    let driver = try StepDriver(.login(password: ""), settings: settings).started()
    return (driver, driver.json(authorization))
  }

  @Test func anApprovedCodeEndsInTokens() throws {
    let driver = try StepDriver(.login(password: ""), settings: Self.settings)
    let authorize = try #require(driver.start().sent)
    #expect(authorize.method == "POST" && authorize.url == "https://id.example/o/device/")
    #expect(authorize.form == ["scope=openid", "client_id=tv"] && authorize.headers["Authorization"] == nil)
    #expect(
      driver.json(Self.authorized)
        == .show(message: "enter the code WDJB-MJHT", link: "https://id.example/device?user_code=WDJB-MJHT", expiresIn: 1800))

    let poll = try #require(driver.afterShowing().sent)
    #expect(poll.url == "https://id.example/o/token/" && poll.delay == 2000, "the provider's interval")
    #expect(poll.form == ["grant_type=urn:ietf:params:oauth:grant-type:device_code", "device_code=dc-1", "client_id=tv"])
    #expect(driver.json(Self.pending, status: 400).sent == poll, "pending: the same poll again")
    #expect(driver.json(#"{"error": "slow_down"}"#, status: 400).sent?.delay == 7000, "slow_down: 5 s more")
    #expect(driver.json(Self.pending, status: 400).sent?.delay == 7000, "and it stays")
    #expect(
      driver.json(#"{"access_token": "at-1", "token_type": "Bearer", "expires_in": 300, "refresh_token": "rt-1"}"#)
        == .ok(Done(token: "at-1", expiresIn: 300, refreshToken: "rt-1")))
  }

  @Test func withoutACompleteURIThePersonGetsTheVerificationURIAndTheDefaults() throws {
    let (driver, show) = try shown(
      authorization: #"{"device_code": "dc-1", "user_code": "WDJB-MJHT", "verification_uri": "https://id.example/device", "expires_in": 900}"#)
    #expect(show == .show(message: "enter the code WDJB-MJHT", link: "https://id.example/device", expiresIn: 900))
    #expect(driver.afterShowing().sent?.delay == 5000, "5 s when the provider gives no interval")
  }

  @Test(arguments: [
    (#""expires_in": 7200, "interval": 300"#, 3600 as Int64, 60_000 as UInt32),
    (#""expires_in": 0, "interval": 0"#, 1, 5000),
    (#""expires_in": "600", "interval": "1""#, 600, 1000),
    // RFC 8628 requires expires_in; left out, the person gets ten minutes, not none.
    (#""interval": 1"#, 600, 1000),
  ])
  func theWaitAndTheIntervalAreBounded(members: String, expiresIn: Int64, delay: UInt32) throws {
    let (driver, show) = try shown(
      authorization: #"{"device_code": "d", "user_code": "U", "verification_uri": "https://id.example/d", \#(members)}"#)
    #expect(show == .show(message: "enter the code U", link: "https://id.example/d", expiresIn: expiresIn))
    #expect(driver.afterShowing().sent?.delay == delay)
  }

  @Test func aDeniedCodeIsARefusedLogin() throws {
    let (driver, _) = try shown()
    _ = driver.afterShowing()
    #expect(driver.json(#"{"error": "access_denied"}"#, status: 400) == .wrongPassword("the login was denied at the provider"))
  }

  @Test func anExpiredCodeSaysToLogInAgain() throws {
    let (driver, _) = try shown()
    _ = driver.afterShowing()
    #expect(
      driver.json(#"{"error": "expired_token"}"#, status: 400)
        == .sessionExpired("the code expired before it was approved; run accounts login again"))
  }

  /// The polling ends when the code expires by the host's clock, whatever the provider says.
  @Test func pollingEndsAtTheCodesExpiry() throws {
    let start: Int64 = 1_700_000_000
    let (driver, _) = try StepClock.$now.withValue(start) { try shown() }
    _ = StepClock.$now.withValue(start + 2) { driver.afterShowing() }
    #expect(StepClock.$now.withValue(start + 1799) { driver.json(Self.pending, status: 400) }.sent != nil)
    #expect(
      StepClock.$now.withValue(start + 1800) { driver.json(Self.pending, status: 400) }
        == .sessionExpired("the code expired before it was approved; run accounts login again"))
  }

  /// A clock that stands still cannot keep it polling: at most one poll a second of the code's life.
  @Test func pollingIsBoundedByCountToo() throws {
    let (driver, _) = try shown(
      authorization: #"{"device_code": "d", "user_code": "U", "verification_uri": "https://id.example/d", "expires_in": 3, "interval": 1}"#)
    #expect(driver.afterShowing().sent != nil)
    #expect(driver.json(Self.pending, status: 400).sent != nil)
    #expect(driver.json(Self.pending, status: 400).sent != nil)
    #expect(driver.json(Self.pending, status: 400) == .sessionExpired("the code expired before it was approved; run accounts login again"))
  }

  @Test func aConfidentialClientAuthenticatesAndStillNamesItself() throws {
    let driver = try StepDriver(.login(password: ""), settings: Self.settings.merging(["client_secret": "tv-secret"]) { $1 })
    let authorize = try #require(driver.start().sent)
    #expect(authorize.form == ["scope=openid", "client_id=tv"] && authorize.basic?.secret == "tv-secret")
    _ = driver.json(Self.authorized)
    #expect(try #require(driver.afterShowing().sent).basic?.id == "tv")
  }

  @Test func whatThePersonIsShownIsOneLineAndItsLinkIsSafe() throws {
    let (_, controls) = try shown(
      authorization: #"{"device_code": "d", "user_code": "AB\u001b[2J\nCD", "verification_uri": "https://id.example/d", "expires_in": 60}"#)
    #expect(controls == .show(message: "enter the code AB [2J CD", link: "https://id.example/d", expiresIn: 60))
    // A complete URI over plain http elsewhere is dropped for the plain one.
    let (_, insecure) = try shown(
      authorization: #"{"device_code": "d", "user_code": "U", "verification_uri": "https://id.example/d", "verification_uri_complete": "http://id.example/d?user_code=U", "expires_in": 60}"#)
    #expect(insecure == .show(message: "enter the code U", link: "https://id.example/d", expiresIn: 60))
    let (_, refused) = try shown(
      authorization: #"{"device_code": "d", "user_code": "U", "verification_uri": "http://id.example/d", "expires_in": 60}"#)
    #expect(
      refused
        == .error("the provider's verification_uri is plain http:// to \"id.example\", which is not this machine; use https://, or set allow_insecure_transport=true for a test server"))
  }

  @Test(arguments: [
    (#"{"user_code": "U", "verification_uri": "https://id.example/d"}"#, "device_code"),
    (#"{"device_code": "d", "verification_uri": "https://id.example/d"}"#, "user_code"),
    (#"{"device_code": "d", "user_code": "\u0007", "verification_uri": "https://id.example/d"}"#, "user_code"),
    (#"{"device_code": "d", "user_code": "U"}"#, "verification_uri"),
    (#"{"device_code": "d", "user_code": "U", "verification_uri": "javascript:alert(1)"}"#, "verification_uri"),
  ])
  func anAuthorizationWithoutWhatItNeedsIsAnError(body: String, member: String) throws {
    let (_, result) = try shown(authorization: body)
    #expect(result == .error("the provider's device authorization reply has no usable \(member)"))
  }

  @Test func theDeviceCodeNeverReachesAMessage() throws {
    let (driver, _) = try shown()
    _ = driver.afterShowing()
    #expect(
      driver.json(#"{"error": "invalid_grant", "error_description": "device code dc-1 unknown"}"#, status: 400)
        == .error("provider: invalid_grant: device code … unknown"))
  }

  @Test func aClientTheProviderRefusesNamesItsSettings() throws {
    let driver = try StepDriver(.login(password: ""), settings: Self.settings).started()
    #expect(
      driver.json(#"{"error": "invalid_client"}"#, status: 401)
        == .error("the provider rejected the client (invalid_client); check settings client_id and client_secret"))
  }
}
