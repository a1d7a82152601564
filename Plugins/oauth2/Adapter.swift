import AdapterKit
import CAccountsAdapter

/// The library's one export: the descriptor of the oauth2 adapter.
@_cdecl("accounts_adapter_v1")
public func accountsAdapterV1(_ hostABIVersion: UInt32) -> UnsafePointer<acc_adapter>? {
  exported.descriptor(forHost: hostABIVersion)
}

private let exported = ExportedAdapter(
  OAuth2Adapter.self,
  sessionNew: { config in newSession(OAuth2Adapter.self, config) },
  loginNeeds: { settings in loginNeeds(OAuth2Adapter.self, settings) })

/// An OAuth 2.0 / OpenID Connect provider (Keycloak, Okta, Auth0, Entra ID, GitLab, ...):
/// bearer tokens from the password, client credentials or device authorization grant (RFC 6749,
/// RFC 8628), renewed with refresh tokens, checked by introspection (RFC 7662) or userinfo,
/// revoked at logout (RFC 7009), the endpoints given or discovered (OIDC Discovery, RFC 8414).
enum OAuth2Adapter: Adapter {
  static let name: StaticString = "oauth2"
  static let version: StaticString = "1.0.0"
  static let summary: StaticString =
    "OAuth 2.0 / OpenID Connect provider: password, client credentials or device grant, bearer and refresh tokens"

  /// CHECK asks the provider only when `check` is set.
  static let declaresSessionCheck = true
  static let settings = [
    SettingDefinition(
      "issuer",
      "Issuer URL the endpoints are discovered from, e.g. https://id.example.com/realms/qa",
      flags: .optional),
    SettingDefinition(
      "token_endpoint", "Token endpoint URL; without it, discovered from issuer", flags: .optional),
    SettingDefinition(
      "device_authorization_endpoint",
      "Device authorization endpoint URL, for grant device_code; without it, discovered",
      flags: .optional),
    SettingDefinition(
      "revocation_endpoint",
      "Token revocation endpoint URL, used by logout; without it, discovered", flags: .optional),
    SettingDefinition(
      "introspection_endpoint",
      "Token introspection endpoint URL, for check introspection; without it, discovered",
      flags: .optional),
    SettingDefinition(
      "userinfo_endpoint",
      "OpenID Connect userinfo endpoint URL, for check userinfo; without it, discovered",
      flags: .optional),
    SettingDefinition(
      "client_id",
      "Client id registered at the provider (with grant client_credentials the account's user name is the client id)",
      flags: .optional),
    SettingDefinition(
      "client_secret", "Client secret; leave it out for a public client",
      flags: [.secret, .optional]),
    SettingDefinition(
      "scope", "Scopes to ask for, separated by spaces, e.g. openid profile", flags: .optional),
    SettingDefinition(
      "audience", "The API the tokens are for, where the provider asks for one (Auth0), e.g. https://api.example.com",
      flags: .optional),
    SettingDefinition(
      "grant",
      "How login gets a token: password, client_credentials (the account is a client) or device_code (a person approves in a browser)",
      flags: .optional, default: "password"),
    SettingDefinition(
      "check",
      "How a session is checked: introspection or userinfo; empty trusts the expiry alone",
      flags: [.optional, .sessionCheck]),
    SettingDefinition(
      "introspection_client_id",
      "Client id the introspection endpoint accepts (the resource server's); default: client_id",
      flags: .optional),
    SettingDefinition(
      "introspection_client_secret", "Secret of introspection_client_id; default: client_secret",
      flags: [.secret, .optional]),
    SettingDefinition(
      "api_base",
      "Base URL of the API that accounts request calls with the bearer token, e.g. https://api.example.com",
      flags: .optional),
    SettingDefinition(
      "allow_insecure_transport",
      "true allows http:// endpoints on hosts other than this machine (a test server)",
      flags: .optional, default: "false"),
  ]

  /// A person approves a device code; every other grant takes the account's password.
  static func loginNeeds(settings: Settings) -> LoginNeeds {
    settings.value("grant") == Grant.deviceCode.rawValue ? .person : .password
  }

  static func makeSession(for configuration: SessionConfiguration, host: any HostServices)
    throws(AdapterError) -> any AdapterSession
  {
    OAuth2Session(
      configuration: configuration, settings: try OAuth2Settings(configuration.settings), host: host
    )
  }
}
