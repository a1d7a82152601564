import AdapterKit
import SecretMemory

/// How LOGIN gets a token (the `grant` setting).
enum Grant: String, CaseIterable {
  /// The resource owner password grant: the account is the user (RFC 6749 §4.3).
  case password
  /// The client credentials grant: the account's user name is the client id, its password the
  /// client secret (RFC 6749 §4.4).
  case clientCredentials = "client_credentials"
  /// The device authorization grant: a person approves in a browser (RFC 8628).
  case deviceCode = "device_code"
}

/// How CHECK proves a session (the `check` setting; unset: the expiry alone, never asked).
enum SessionCheck: String, CaseIterable {
  /// Token introspection (RFC 7662), with the resource server's credentials.
  case introspection
  /// The OpenID Connect userinfo endpoint, with the token.
  case userinfo

  /// Where it asks.
  var endpoint: Endpoint {
    switch self {
    case .introspection: .introspection
    case .userinfo: .userinfo
    }
  }
}

/// The provider's endpoints. Each raw value names the setting that gives it, the member of a
/// discovery document that names it (OIDC Discovery §3, RFC 8414 §2) and the session value
/// that keeps a discovered one.
enum Endpoint: String, CaseIterable {
  case token = "token_endpoint"
  case deviceAuthorization = "device_authorization_endpoint"
  case revocation = "revocation_endpoint"
  case introspection = "introspection_endpoint"
  case userinfo = "userinfo_endpoint"

  /// "the token endpoint", for messages.
  var spoken: String {
    switch self {
    case .token: "the token endpoint"
    case .deviceAuthorization: "the device authorization endpoint"
    case .revocation: "the revocation endpoint"
    case .introspection: "the introspection endpoint"
    case .userinfo: "the userinfo endpoint"
    }
  }
}

/// A client's credentials: a secret authenticates it with HTTP Basic, without one it is a
/// public client that names itself.
struct Client {
  let id: String
  let secret: SecretBytes?
}

/// The oauth2 adapter's settings, checked without any network (VALIDATE runs this alone).
struct OAuth2Settings {
  /// `issuer`, as given: a discovery document must name exactly this.
  let issuer: String?
  /// The endpoints the backend gives; they win over discovered ones.
  let endpoints: [Endpoint: String]
  /// `client_id` and `client_secret`; nil without client_id.
  let client: Client?
  let scope: String?
  /// `audience`: the API the tokens are for (Auth0 and others), sent beside the scope.
  let audience: String?
  let grant: Grant
  let check: SessionCheck?
  /// Who asks the introspection endpoint; nil unless check is introspection.
  let introspectionClient: Client?
  /// `api_base`, without its trailing slashes.
  let apiBase: String?
  let transport: TransportPolicy

  init(_ settings: Settings) throws(AdapterError) {
    let transport = try TransportPolicy(settings)
    self.transport = transport
    let grant = try settings.choice("grant", of: Grant.self)
    self.grant = grant
    let issuer = try Self.url(
      settings, "issuer", example: "https://id.example.com/realms/qa", transport)
    self.issuer = issuer
    var endpoints: [Endpoint: String] = [:]
    for endpoint in Endpoint.allCases {
      endpoints[endpoint] = try Self.url(
        settings, endpoint.rawValue, example: "https://id.example.com/oauth2/token", transport)
    }
    self.endpoints = endpoints
    apiBase = try settings.given("api_base").map { value throws(AdapterError) in
      let base = try URLBuilder.checkedBase(value, setting: "api_base")
      guard transport.permits(base) else { throw transport.refusal(base, what: "setting api_base") }
      return base
    }

    let clientID = settings.given("client_id")
    let clientSecret = settings.secret("client_secret")
    if clientID == nil && clientSecret != nil {
      throw AdapterError("setting client_secret is given without client_id; give client_id too")
    }
    let client = clientID.map { Client(id: $0, secret: clientSecret) }
    self.client = client
    if client == nil && grant != .clientCredentials {
      throw AdapterError(
        "setting client_id is missing; it is required with grant \(grant.rawValue) (the id the provider registered the client under)"
      )
    }

    let scope = settings.given("scope")
    self.scope = scope
    audience = settings.given("audience")
    if let audience, audience.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
      throw AdapterError("setting audience must be one line without control characters")
    }
    if let scope, !scope.utf8.allSatisfy({ $0 == UInt8(ascii: " ") || Self.isScopeCharacter($0) }) {
      throw AdapterError(
        "setting scope must be scope names separated by spaces, e.g. \"openid profile\", not "
          + Message.quoted(scope))
    }

    try Self.needs(.token, "setting token_endpoint is missing", endpoints, issuer)
    if grant == .deviceCode {
      try Self.needs(
        .deviceAuthorization, "grant device_code needs the device authorization endpoint",
        endpoints, issuer)
    }
    let check = try settings.given("check").map { value throws(AdapterError) in
      guard let check = SessionCheck(rawValue: value) else {
        throw Settings.unknownValue(
          "check", value,
          accepted: SessionCheck.allCases.map(\.rawValue) + ["empty for the expiry alone"])
      }
      return check
    }
    self.check = check
    switch check {
    case .introspection?:
      try Self.needs(
        .introspection, "check introspection needs the introspection endpoint", endpoints, issuer)
      introspectionClient = try Self.introspectionClient(settings, client: client)
    case .userinfo?:
      try Self.needs(.userinfo, "check userinfo needs the userinfo endpoint", endpoints, issuer)
      introspectionClient = nil
    case nil:
      introspectionClient = nil
    }
  }

  /// The setting `name` checked as a URL credentials may go to; nil when not given.
  private static func url(
    _ settings: Settings, _ name: String, example: String, _ transport: TransportPolicy
  ) throws(AdapterError) -> String? {
    guard let value = settings.given(name) else { return nil }
    let url = try URLBuilder.checked(value, setting: name, example: example)
    guard transport.permits(url) else { throw transport.refusal(url, what: "setting \(name)") }
    return url
  }

  /// An endpoint the settings must give, or give an issuer to discover it from.
  private static func needs(
    _ endpoint: Endpoint, _ problem: String, _ endpoints: [Endpoint: String], _ issuer: String?
  ) throws(AdapterError) {
    guard endpoints[endpoint] == nil && issuer == nil else { return }
    throw AdapterError("\(problem); give setting \(endpoint.rawValue), or issuer to discover it")
  }

  /// The resource server's credentials (RFC 7662 §2.1): introspection_client_id with its
  /// secret, else the client's own, which must then have a secret.
  private static func introspectionClient(_ settings: Settings, client: Client?)
    throws(AdapterError) -> Client
  {
    let secret = settings.secret("introspection_client_secret")
    if let id = settings.given("introspection_client_id") {
      guard let secret else {
        throw AdapterError(
          "setting introspection_client_secret is missing; it is required with introspection_client_id"
        )
      }
      return Client(id: id, secret: secret)
    }
    guard secret == nil else {
      throw AdapterError(
        "setting introspection_client_secret is given without introspection_client_id; give introspection_client_id too"
      )
    }
    guard let client, client.secret != nil else {
      throw AdapterError(
        "check introspection needs the resource server's credentials: set introspection_client_id and "
          + "introspection_client_secret (or client_id and client_secret)")
    }
    return client
  }

  /// RFC 6749 §3.3's scope-token characters: visible ASCII but `"` and `\`.
  private static func isScopeCharacter(_ byte: UInt8) -> Bool {
    (0x21...0x7E).contains(byte) && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
  }
}
