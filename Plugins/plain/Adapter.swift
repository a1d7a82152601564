import AdapterKit
import CAccountsAdapter

/// The library's one export: the descriptor of the plain adapter.
@_cdecl("accounts_adapter_v1")
public func accountsAdapterV1(_ hostABIVersion: UInt32) -> UnsafePointer<acc_adapter>? {
  exported.descriptor(forHost: hostABIVersion)
}

private let exported = ExportedAdapter(PlainAdapter.self) { config in
  newSession(PlainAdapter.self, config)
}

/// Form login with the password as is, in base64, or as one of three MD5 digests.
enum PlainAdapter: Adapter {
  static let name: StaticString = "plain"
  static let version: StaticString = "1.0.0"
  static let summary: StaticString =
    "Form login (user name and password, plain, base64 or MD5-encoded), token in a header"

  /// CHECK asks the backend only when check_path is set (`BackendSettings`).
  static let declaresSessionCheck = true
  static let settings =
    BackendSettings.definitions + FormLoginSettings.definitions + [
      SettingDefinition(
        "encoding", "How the password is sent: plain, base64, md5, md5-salt or md5-hmac",
        flags: .optional, default: "plain"),
      SettingDefinition(
        "salt", "Appended to the password before hashing (required with encoding md5-salt)",
        flags: .optional),
      SettingDefinition(
        "hmac_key", "HMAC key for the password (required with encoding md5-hmac)",
        flags: [.secret, .optional]),
      SettingDefinition(
        "allow_insecure_transport",
        "true lets encoding plain or base64 send the password over http://", flags: .optional,
        default: "false"),
    ]

  static func makeSession(for configuration: SessionConfiguration, host: any HostServices)
    throws(AdapterError) -> any AdapterSession
  {
    let settings = configuration.settings
    let formLogin = try FormLoginSettings(settings)
    let encoding = try encoding(settings)
    let allowInsecure = try settings.flag("allow_insecure_transport")
    if encoding.isRecoverable && formLogin.backend.isPlainHTTP && !allowInsecure {
      let name = settings.value("encoding")
      throw AdapterError(
        "encoding \(name) puts a recoverable password on the wire over http://; use an "
          + "https:// base_url or set allow_insecure_transport=true")
    }
    return FormLoginSession(configuration: configuration, settings: formLogin) {
      password throws(AdapterError) in
      try encoding.encode(password, host: host)
    }
  }

  /// The `encoding` setting's values.
  private enum EncodingName: String, CaseIterable {
    case plain
    case base64
    case md5
    case md5Salt = "md5-salt"
    case md5HMAC = "md5-hmac"
  }

  private static func encoding(_ settings: Settings) throws(AdapterError) -> PasswordEncoding {
    switch try settings.choice("encoding", of: EncodingName.self) {
    case .plain:
      return .plain
    case .base64:
      return .base64
    case .md5:
      return .md5
    case .md5Salt:
      guard let salt = settings.given("salt") else {
        throw AdapterError("setting salt is missing; it is required when encoding is md5-salt")
      }
      return .md5Salt(salt: salt)
    case .md5HMAC:
      guard let key = settings.secret("hmac_key") else {
        throw AdapterError("setting hmac_key is missing; it is required when encoding is md5-hmac")
      }
      return .md5HMAC(key: key)
    }
  }
}
