import AdapterKit
import SecretMemory

/// One operation against the provider: discovery first when an endpoint it needs is neither
/// given nor kept from an earlier discovery of the same issuer, then the operation's requests.
final class OAuth2Session: AdapterSession {
  let configuration: SessionConfiguration
  let settings: OAuth2Settings
  let host: any HostServices
  /// What discovery found, now or at login (the session values), for the current issuer.
  var discovered: DiscoveredEndpoints?
  /// What the last request sent was.
  var awaiting: Awaiting?
  /// LOGIN with grant device_code, once the provider has answered the device authorization.
  var device: DeviceAuthorization?
  /// LOGOUT: the tokens still to revoke, and the kinds the provider could not.
  var revocations: [Revocation] = []
  var unrevoked: [String] = []

  enum Awaiting {
    /// A discovery document of `issuer` at `Discovery.places(issuer)[place]`; `answers`: what
    /// the places before it answered instead of one, `found`: what they named.
    case discovery(issuer: String, place: Int, answers: [String], found: DiscoveredEndpoints?)
    case token(TokenRequest)
    case deviceAuthorization
    case introspection
    case userinfo
    case revocation(hint: String)
    case call
  }

  /// A token LOGOUT revokes, with its RFC 7009 token_type_hint.
  struct Revocation {
    let token: SecretBytes
    let hint: String
  }

  init(configuration: SessionConfiguration, settings: OAuth2Settings, host: any HostServices) {
    self.configuration = configuration
    self.settings = settings
    self.host = host
    discovered = DiscoveredEndpoints(
      sessionValues: configuration.sessionValues, issuer: settings.issuer)
    if configuration.operation == .logout {
      // The refresh token first: at some providers revoking it also ends its access tokens.
      if !configuration.refreshToken.isEmpty {
        revocations.append(Revocation(token: configuration.refreshToken, hint: "refresh_token"))
      }
      if !configuration.token.isEmpty {
        var bytes = Array(configuration.token.utf8)
        revocations.append(Revocation(token: SecretBytes(consuming: &bytes), hint: "access_token"))
      }
    }
  }

  func start() throws(AdapterError) -> StepResult {
    switch configuration.operation {
    case .validate:
      return .ok
    case .call:
      return try call()
    case .check where settings.check == nil:
      return .ok
    case .logout where revocations.isEmpty:
      return .ok
    case .logout where revocationClient == nil:
      return .ok(message: Self.noSecretAtLogout)
    default:
      break
    }
    let missing = neededEndpoints.contains {
      settings.endpoints[$0] ?? discovered?.endpoints[$0] == nil
    }
    if missing, let issuer = settings.issuer {
      return try discover(issuer, at: 0, answers: [], found: nil)
    }
    return try begin()
  }

  func resume(with response: Response) throws(AdapterError) -> StepResult {
    switch awaiting {
    case .discovery(let issuer, let place, var answers, var found)?:
      let url = Discovery.places(issuer)[place]
      if let earlier = found {
        // Only to fill gaps: a place with nothing good to add is passed over.
        if case .found(let more)? = try? Discovery.read(response, from: url, issuer: issuer) {
          found = earlier.completed(by: more)
        }
      } else {
        switch try Discovery.read(response, from: url, issuer: issuer) {
        case .found(let endpoints): found = endpoints
        case .absent(let answer): answers.append(answer)
        }
      }
      return try discover(issuer, at: place + 1, answers: answers, found: found)
    case .token(let request)?:
      return try tokenResult(response, of: request)
    case .deviceAuthorization?:
      return try deviceAuthorized(response)
    case .introspection?:
      return try introspected(response)
    case .userinfo?:
      return try userinfoResult(response)
    case .revocation(let hint)?:
      return try revoked(response, hint: hint)
    case .call?:
      return try called(response)
    case nil:
      return .error("the host handed a response to a request the adapter did not send")
    }
  }

  func resumeAfterShowing() throws(AdapterError) -> StepResult {
    try poll()
  }

  /// The endpoints the operation sends to.
  var neededEndpoints: [Endpoint] {
    switch configuration.operation {
    case .login: settings.grant == .deviceCode ? [.deviceAuthorization, .token] : [.token]
    case .refresh: [.token]
    case .check: settings.check.map { [$0.endpoint] } ?? []
    case .logout: [.revocation]
    case .call, .validate: []
    }
  }

  /// What a discovery looks for: the endpoints the operation needs, and at LOGIN and REFRESH,
  /// whose OK keeps what was found in session values, those later operations will need.
  var wantedEndpoints: [Endpoint] {
    switch configuration.operation {
    case .login, .refresh:
      neededEndpoints + [.token, .revocation] + (settings.check.map { [$0.endpoint] } ?? [])
    default: neededEndpoints
    }
  }

  /// The next discovery request while a wanted endpoint is neither given nor found and a place
  /// is left to look; then the operation's first request, with what was found.
  private func discover(
    _ issuer: String, at place: Int, answers: [String], found: DiscoveredEndpoints?
  ) throws(AdapterError) -> StepResult {
    let places = Discovery.places(issuer)
    let lacking = wantedEndpoints.contains { settings.endpoints[$0] ?? found?.endpoints[$0] == nil }
    guard lacking, place < places.count else {
      guard let found else {
        throw AdapterError(
          "found no discovery document for issuer \(Message.quoted(issuer)): "
            + answers.joined(separator: "; ")
            + "; check setting issuer, or give the endpoints one by one")
      }
      discovered = found
      return try begin()
    }
    awaiting = .discovery(issuer: issuer, place: place, answers: answers, found: found)
    return .send(Discovery.request(places[place]))
  }

  /// The operation's first request, its endpoints known.
  private func begin() throws(AdapterError) -> StepResult {
    switch configuration.operation {
    case .login:
      switch settings.grant {
      case .password:
        return try tokenRequest(
          .password,
          [
            FormField("grant_type", "password"), FormField("username", configuration.user),
            FormField("password", secret: configuration.password),
          ] + scopeField, as: settings.client)
      case .clientCredentials:
        return try tokenRequest(
          .clientCredentials, [FormField("grant_type", "client_credentials")] + scopeField,
          as: accountClient)
      case .deviceCode:
        awaiting = .deviceAuthorization
        return .send(
          ClientAuthentication.post(
            try url(of: .deviceAuthorization), scopeField, as: settings.client, namesClient: true))
      }
    case .refresh:
      guard !configuration.refreshToken.isEmpty else {
        throw AdapterError("the host asked to refresh the session without a refresh token")
      }
      // No scope: the refreshed token keeps the one granted (RFC 6749 §6).
      return try tokenRequest(
        .refresh,
        [
          FormField("grant_type", "refresh_token"),
          FormField("refresh_token", secret: configuration.refreshToken),
        ],
        as: settings.client)
    case .check:
      return try checkRequest()
    case .logout:
      return try revokeNext()
    case .call, .validate:
      return .ok
    }
  }

  /// What a new grant asks for: `scope`, and `audience` where the provider wants one.
  private var scopeField: [FormField] {
    (settings.scope.map { [FormField("scope", $0)] } ?? []) + (settings.audience.map { [FormField("audience", $0)] } ?? [])
  }

  private func tokenRequest(_ request: TokenRequest, _ fields: [FormField], as client: Client?)
    throws(AdapterError) -> StepResult
  {
    awaiting = .token(request)
    return .send(ClientAuthentication.post(try url(of: .token), fields, as: client))
  }

  /// The token endpoint's answer to `request`.
  func tokenResult(_ response: Response, of request: TokenRequest) throws(AdapterError)
    -> StepResult
  {
    switch ProviderReply.read(
      response, from: Endpoint.token.spoken, check: setting(for: .token), secrets: secrets)
    {
    case .object(let object):
      let tokens = try IssuedTokens(object)
      // A client's own credentials renew its session: a refresh token would only be one more
      // secret to keep, which REFRESH could not use without the client secret.
      let refreshToken = request == .clientCredentials ? .empty : tokens.refreshToken
      return .ok(
        token: tokens.accessToken, expiresIn: tokens.expiresIn,
        sessionValues: discovered?.sessionValues ?? [],
        refreshToken: refreshToken)
    case .error(let error):
      if request == .deviceCode, let next = try pollAgain(after: error) { return next }
      return TokenErrors.outcome(error, of: request, grant: settings.grant)
    case .unreadable(let what):
      guard response.status == 401 else { throw AdapterError(what) }
      return TokenErrors.outcome(
        TokenErrors.unauthorized(response.status), of: request, grant: settings.grant)
    }
  }

  /// With grant client_credentials, the client the account is: its user name the id, its
  /// password (given to LOGIN only) the secret, nil when empty.
  var accountClient: Client {
    Client(id: configuration.user, secret: configuration.password.isEmpty ? nil : configuration.password)
  }

  /// The endpoint the settings give, else the one discovered, checked as a setting would be;
  /// nil when neither names it. A document an https issuer serves never sends credentials over
  /// plain http, to this machine either.
  func knownURL(of endpoint: Endpoint) throws(AdapterError) -> String? {
    if let given = settings.endpoints[endpoint] { return given }
    guard let url = discovered?.endpoints[endpoint] else { return nil }
    let what = "the provider's \(endpoint.rawValue)"
    guard URLBuilder.isAcceptable(url) else {
      throw AdapterError(
        "\(what) \(Message.quoted(url, limit: 200)) is not an http:// or https:// URL without spaces, query or "
          + "fragment; give setting \(endpoint.rawValue)")
    }
    guard settings.transport.permits(url) else { throw settings.transport.refusal(url, what: what) }
    if let issuer = discovered?.issuer, URLBuilder.isPlainHTTP(url), !URLBuilder.isPlainHTTP(issuer) {
      throw AdapterError(
        "\(what) \(Message.quoted(url, limit: 200)) is plain http:// while the issuer is https://; "
          + "give setting \(endpoint.rawValue) if that is really meant")
    }
    return url
  }

  /// An endpoint the operation cannot do without.
  func url(of endpoint: Endpoint) throws(AdapterError) -> String {
    guard let url = try knownURL(of: endpoint) else {
      throw AdapterError(
        "the provider's discovery document names no \(endpoint.rawValue); give setting \(endpoint.rawValue)"
      )
    }
    return url
  }

  /// The setting to check when `endpoint` misbehaves: its own when given, else issuer.
  func setting(for endpoint: Endpoint) -> String {
    settings.endpoints[endpoint] == nil ? "issuer" : endpoint.rawValue
  }

  /// Every secret this operation holds, as is and form-encoded: cut out of whatever the
  /// provider's text a message quotes.
  var secrets: [SecretBytes] {
    var secrets = [configuration.password, configuration.refreshToken]
    secrets += [settings.client?.secret, settings.introspectionClient?.secret, device?.deviceCode]
      .compactMap { $0 }
    if !configuration.token.isEmpty {
      var bytes = Array(configuration.token.utf8)
      secrets.append(SecretBytes(consuming: &bytes))
    }
    secrets = secrets.filter { !$0.isEmpty }
    // The Basic credentials each client sends, which a provider may quote back.
    var clients = [settings.client, settings.introspectionClient].compactMap { $0 }
    if settings.grant == .clientCredentials { clients.append(accountClient) }
    let basic = clients.compactMap { client in
      client.secret.map { ClientAuthentication.basicCredentials(id: client.id, secret: $0) }
    }
    return secrets + secrets.map { FormEncoding.escaped($0) } + basic
  }

  /// The token CHECK and CALL send.
  func bearerToken() throws(AdapterError) -> SecretPair? {
    let token = try configuration.headerSafeToken()
    return token.isEmpty ? nil : ClientAuthentication.bearer(token)
  }

  static let noSecretAtLogout =
    "the token stays valid until it expires: revoking it needs the client secret (the account's password), which logout is not given"
}
