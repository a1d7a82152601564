import AdapterKit
import SecretMemory

/// CHECK, LOGOUT and CALL: what an existing session's token does.
extension OAuth2Session {
  static let noToken = "the session has no access token; log in again"

  /// CHECK by introspection (RFC 7662 §2.1) or userinfo (OIDC Core §5.3).
  func checkRequest() throws(AdapterError) -> StepResult {
    guard let bearer = try bearerToken() else { return .sessionExpired(Self.noToken) }
    switch settings.check {
    case .introspection?:
      awaiting = .introspection
      var token = Array(configuration.token.utf8)
      return .send(
        ClientAuthentication.post(
          try url(of: .introspection),
          [
            FormField("token", secret: SecretBytes(consuming: &token)),
            FormField("token_type_hint", "access_token"),
          ],
          as: settings.introspectionClient))
    case .userinfo?:
      awaiting = .userinfo
      return .send(
        Request(
          method: "GET", url: try url(of: .userinfo), headers: [ClientAuthentication.accept],
          secretHeaders: [bearer]))
    case nil:
      return .ok
    }
  }

  func introspected(_ response: Response) throws(AdapterError) -> StepResult {
    let refused =
      "the introspection endpoint refused the resource server's credentials (HTTP \(response.status)); check "
      + "settings introspection_client_id and introspection_client_secret (default: client_id and client_secret)"
    switch ProviderReply.read(
      response, from: Endpoint.introspection.spoken, check: setting(for: .introspection),
      secrets: secrets)
    {
    case .object(let object):
      guard case .bool(let active)? = object["active"] else {
        throw AdapterError("the introspection endpoint's reply has no boolean active")
      }
      guard active else {
        return .sessionExpired("the provider says the token is no longer active")
      }
      guard case .number(let number)? = object["exp"], let expiry = number.int64 else { return .ok }
      // Compared before subtracting: a hostile exp (Int64.min) must not overflow.
      let now = try host.now()
      guard expiry > now else { return .sessionExpired("the provider says the token has expired") }
      return .ok(expiresIn: expiry - now)
    case .error(let error):
      if error.code == "invalid_client" || [401, 403].contains(error.status) {
        throw AdapterError(refused)
      }
      throw AdapterError("provider: \(error.detail)")
    case .unreadable(let what):
      throw AdapterError([401, 403].contains(response.status) ? refused : what)
    }
  }

  func userinfoResult(_ response: Response) throws(AdapterError) -> StepResult {
    let who = Endpoint.userinfo.spoken
    if let redirect = Redirect.message(response, from: who, check: setting(for: .userinfo)) {
      throw AdapterError(redirect)
    }
    switch response.status {
    case 200...299:
      return .ok
    case 401:
      return .sessionExpired("the provider's userinfo endpoint refused the token (HTTP 401)")
    case 403:
      throw AdapterError(
        "the userinfo endpoint refused the token (HTTP 403): it may lack the scope openid; add openid to "
          + "setting scope, or use check introspection")
    default:
      throw AdapterError("\(who) answered \(ProviderReply.whatCame(response, secrets: secrets))")
    }
  }

  /// Who LOGOUT revokes as: the client, or with grant client_credentials the account itself,
  /// which LOGIN alone is given the secret of; nil when its secret is not at hand.
  var revocationClient: Client? {
    guard settings.grant == .clientCredentials else { return settings.client }
    return accountClient.secret == nil ? nil : accountClient
  }

  /// Revokes the next token (RFC 7009 §2.1); OK when none is left.
  func revokeNext() throws(AdapterError) -> StepResult {
    guard let url = try knownURL(of: .revocation) else {
      return .ok(
        message: "the provider has no revocation endpoint: the tokens stay valid until they expire")
    }
    guard !revocations.isEmpty else {
      guard !unrevoked.isEmpty else { return .ok }
      return .ok(
        message:
          "the provider cannot revoke the \(unrevoked.joined(separator: " or ")): it stays valid until it expires"
      )
    }
    let next = revocations.removeFirst()
    awaiting = .revocation(hint: next.hint)
    return .send(
      ClientAuthentication.post(
        url, [FormField("token", secret: next.token), FormField("token_type_hint", next.hint)],
        as: revocationClient))
  }

  func revoked(_ response: Response, hint: String) throws(AdapterError) -> StepResult {
    // RFC 7009 §2.2: 200, whatever the body, even for a token that was no longer valid.
    if (200...299).contains(response.status) { return try revokeNext() }
    let refused =
      "the revocation endpoint refused the client; check settings client_id and client_secret"
    switch ProviderReply.read(
      response, from: Endpoint.revocation.spoken, check: setting(for: .revocation), secrets: secrets
    ) {
    case .error(let error) where error.code == "unsupported_token_type":
      // This kind cannot be revoked there; the next one may be.
      unrevoked.append(hint.replacingUnderscores)
      return try revokeNext()
    case .error(let error):
      if error.code == "invalid_client" || error.status == 401 {
        throw AdapterError("\(refused) (\(error.detail))")
      }
      throw AdapterError("provider: \(error.detail)")
    case .object, .unreadable:
      throw AdapterError(
        response.status == 401
          ? refused + " (HTTP 401)"
          : "\(Endpoint.revocation.spoken) answered \(ProviderReply.whatCame(response, secrets: secrets))"
      )
    }
  }

  /// CALL: api_base and the path, the parameters in the query or a form body, the bearer.
  func call() throws(AdapterError) -> StepResult {
    guard let apiBase = settings.apiBase else {
      throw AdapterError(
        "setting api_base is missing; accounts request needs it: the API's base URL, e.g. https://api.example.com"
      )
    }
    guard let bearer = try bearerToken() else { return .sessionExpired(Self.noToken) }
    var request = FormRequest.make(
      method: try configuration.callMethod(), url: URLBuilder.join(apiBase, configuration.path),
      configuration.parameters.map { FormField($0.name, $0.value) })
    request.secretHeaders = [bearer]
    awaiting = .call
    return .send(request)
  }

  /// As the other built-in adapters: the body of a 2xx, an expired session on 401, else an
  /// error that says what came.
  func called(_ response: Response) throws(AdapterError) -> StepResult {
    if let redirect = Redirect.message(response, from: "the API", check: "api_base") {
      throw AdapterError(redirect)
    }
    switch response.status {
    case 200...299: return .ok(body: response.body)
    case 401: return .sessionExpired("the API refused the token (HTTP 401)")
    default:
      throw AdapterError("the API answered \(ProviderReply.whatCame(response, secrets: secrets))")
    }
  }
}

extension String {
  /// "refresh_token" as "refresh token".
  fileprivate var replacingUnderscores: String {
    String(map { $0 == "_" ? " " : $0 })
  }
}
