import AccountsJSON
import AdapterKit

/// The endpoints a provider's discovery document names, as discovered now or at login (kept in
/// session values so later operations need not ask again).
struct DiscoveredEndpoints: Equatable {
  /// The issuer the document was found for, which it names itself.
  let issuer: String
  /// As the document gives them, unchecked: each is checked when it is used
  /// (`OAuth2Session.endpoint`), so one an operation does not need cannot fail it.
  let endpoints: [Endpoint: String]

  /// The session value that says which issuer the endpoints were discovered from.
  static let issuerValue = "issuer"
  /// The longest session value the host keeps.
  static let valueLimit = 1024

  init(issuer: String, endpoints: [Endpoint: String]) {
    self.issuer = issuer
    self.endpoints = endpoints
  }

  /// The endpoints kept in `sessionValues`, when they were discovered from `issuer` (the
  /// setting may have changed since).
  init?(sessionValues: [Pair], issuer: String?) {
    guard let issuer,
      sessionValues.first(where: { $0.name == Self.issuerValue })?.value == issuer
    else { return nil }
    var endpoints: [Endpoint: String] = [:]
    for endpoint in Endpoint.allCases {
      endpoints[endpoint] = sessionValues.first { $0.name == endpoint.rawValue }?.value
    }
    self.init(issuer: issuer, endpoints: endpoints)
  }

  /// These endpoints, and those of `other`, another document of the same issuer, that these
  /// lack.
  func completed(by other: DiscoveredEndpoints) -> DiscoveredEndpoints {
    DiscoveredEndpoints(
      issuer: issuer, endpoints: endpoints.merging(other.endpoints) { mine, _ in mine })
  }

  /// What LOGIN and REFRESH keep with the session: the issuer and each endpoint that fits in a
  /// session value (a longer one is discovered again when it is needed).
  var sessionValues: [Pair] {
    guard issuer.utf8.count <= Self.valueLimit else { return [] }
    return [Pair(Self.issuerValue, issuer)]
      + Endpoint.allCases.compactMap { endpoint in
        endpoints[endpoint].flatMap {
          $0.utf8.count <= Self.valueLimit ? Pair(endpoint.rawValue, $0) : nil
        }
      }
  }
}

/// Finding a provider's endpoints from its issuer: the OpenID Connect discovery document
/// first, then RFC 8414's authorization server metadata, which may name what the first does not
/// (django-oauth-toolkit's OIDC document names no revocation or introspection endpoint).
enum Discovery {
  /// Where a document of `issuer` is looked for, in order: OIDC's, then RFC 8414's.
  static func places(_ issuer: String) -> [String] {
    [openIDConfigurationURL(issuer), authorizationServerURL(issuer)]
  }

  /// OIDC Discovery §4: the issuer without a final "/", then /.well-known/openid-configuration.
  static func openIDConfigurationURL(_ issuer: String) -> String {
    URLBuilder.withoutTrailingSlashes(issuer) + "/.well-known/openid-configuration"
  }

  /// RFC 8414 §3.1: /.well-known/oauth-authorization-server between the host and the path.
  static func authorizationServerURL(_ issuer: String) -> String {
    let trimmed = URLBuilder.withoutTrailingSlashes(issuer)
    let afterScheme =
      trimmed.firstIndex(of: ":").map { trimmed.index($0, offsetBy: 3) } ?? trimmed.startIndex
    let pathStart = trimmed[afterScheme...].firstIndex(of: "/") ?? trimmed.endIndex
    return String(trimmed[..<pathStart]) + "/.well-known/oauth-authorization-server"
      + String(trimmed[pathStart...])
  }

  /// A GET of a discovery document.
  static func request(_ url: String) -> Request {
    Request(method: "GET", url: url, headers: [Pair("Accept", "application/json")])
  }

  /// What one discovery request found.
  enum Finding: Equatable {
    case found(DiscoveredEndpoints)
    /// No document there (any answer but a JSON object or a redirect): what came, for the
    /// message if the other place has none either.
    case absent(String)
  }

  /// Reads the answer to the discovery request for `issuer` sent to `url`. A document that
  /// names another issuer is refused (OIDC Discovery §4.3, RFC 8414 §3.3): whoever answers for
  /// the issuer's host must not redirect its tokens elsewhere.
  static func read(_ response: Response, from url: String, issuer: String) throws(AdapterError)
    -> Finding
  {
    let place = "the discovery document \(url)"
    if let redirect = Redirect.message(response, from: place, check: "issuer") {
      throw AdapterError(redirect)
    }
    guard (200...299).contains(response.status),
      case .object(let document)? = try? JSON.parse(response.body)
    else {
      return .absent("\(url) answered \(ProviderReply.whatCame(response, secrets: []))")
    }
    guard case .string(let named)? = document["issuer"] else {
      throw AdapterError(
        "\(place) names no issuer; check setting issuer, or give the endpoints one by one")
    }
    guard named == issuer else {
      throw AdapterError(
        "\(place) names issuer \(Message.quoted(named)), not the setting's \(Message.quoted(issuer)); "
          + "set issuer to exactly the provider's, or give the endpoints one by one")
    }
    var endpoints: [Endpoint: String] = [:]
    for endpoint in Endpoint.allCases {
      if case .string(let value)? = document[endpoint.rawValue], !value.isEmpty {
        endpoints[endpoint] = value
      }
    }
    return .found(DiscoveredEndpoints(issuer: issuer, endpoints: endpoints))
  }

}
