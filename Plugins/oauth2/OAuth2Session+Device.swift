import AdapterKit

/// LOGIN with grant device_code: authorize a device, show the person the code, poll.
extension OAuth2Session {
  static let codeExpired = "the code expired before it was approved; run accounts login again"

  /// The device authorization endpoint's answer: the code to show.
  func deviceAuthorized(_ response: Response) throws(AdapterError) -> StepResult {
    switch ProviderReply.read(
      response, from: Endpoint.deviceAuthorization.spoken,
      check: setting(for: .deviceAuthorization), secrets: secrets)
    {
    case .object(let object):
      let device = try DeviceAuthorization(
        object, transport: settings.transport, now: try host.now())
      self.device = device
      return device.show
    case .error(let error):
      return TokenErrors.outcome(error, of: nil, grant: settings.grant)
    case .unreadable(let what):
      guard response.status == 401 else { throw AdapterError(what) }
      return TokenErrors.outcome(
        TokenErrors.unauthorized(response.status), of: nil, grant: settings.grant)
    }
  }

  /// The next poll of the token endpoint, after the interval; the code's end once it expired.
  func poll() throws(AdapterError) -> StepResult {
    guard var device else {
      return .error("the host asked for the next step of a device login that showed nothing")
    }
    guard device.mayPoll(now: try host.now()) else { return .sessionExpired(Self.codeExpired) }
    self.device = device
    awaiting = .token(.deviceCode)
    return .send(
      ClientAuthentication.post(
        try url(of: .token), device.pollFields(), as: settings.client, namesClient: true),
      delayMilliseconds: device.delayMilliseconds)
  }

  /// What an error answer to a poll means (RFC 8628 §3.5); nil for the errors any token
  /// request may get.
  func pollAgain(after error: OAuthError) throws(AdapterError) -> StepResult? {
    switch error.code {
    case "authorization_pending":
      return try poll()
    case "slow_down":
      device?.slowDown()
      return try poll()
    case "access_denied":
      return .wrongPassword("the login was denied at the provider")
    case "expired_token":
      return .sessionExpired(Self.codeExpired)
    default:
      return nil
    }
  }
}
