import SecretMemory

/// A backend's settings as the host lent them, with the adapter's defaults and checks.
///
/// Secret settings (ACC_SETTING_SECRET) are kept as `SecretBytes` and only ever read through
/// `secret(_:)`; the others as strings. An empty value counts as left out.
public struct Settings: Sendable {
  private let definitions: [SettingDefinition]
  private var texts: [String: String] = [:]
  private var secrets: [String: SecretBytes] = [:]

  /// Settings from raw name/value bytes, as the host hands them over. Names the adapter does
  /// not declare are ignored.
  public init(definitions: [SettingDefinition], raw: [(name: String, value: SecretBytes)]) {
    self.definitions = definitions
    for (name, value) in raw where !value.isEmpty {
      guard let definition = definitions.first(where: { $0.nameText == name }) else { continue }
      if definition.flags.contains(.secret) {
        secrets[name] = value
      } else {
        texts[name] = String(decoding: value.unprotectedBytes, as: UTF8.self)
      }
    }
  }

  /// Settings from strings, for tests and for callers that have no secrets to protect.
  public init(definitions: [SettingDefinition], _ given: [String: String]) {
    self.init(
      definitions: definitions,
      raw: given.map { (name: $0.key, value: SecretBytes(Array($0.value.utf8))) })
  }

  /// The value the backend gives, or nil when it gives none (or an empty one, or the setting
  /// is secret).
  public func given(_ name: String) -> String? { texts[name] }

  /// The value the backend gives, or else the adapter's default ("" when there is none).
  public func value(_ name: String) -> String {
    texts[name] ?? definition(name)?.defaultText ?? ""
  }

  /// The value of a setting the backend must give.
  public func required(_ name: String) throws(AdapterError) -> String {
    guard let value = texts[name] else { throw Self.missing(name) }
    return value
  }

  /// The secret the backend gives, or nil.
  public func secret(_ name: String) -> SecretBytes? { secrets[name] }

  /// The secret the backend must give.
  public func requiredSecret(_ name: String) throws(AdapterError) -> SecretBytes {
    guard let value = secrets[name] else { throw Self.missing(name) }
    return value
  }

  /// The value (or default) matched against `accepted`, exactly, as written in the docs.
  public func choice<Value>(
    _ name: String, _ accepted: KeyValuePairs<String, Value>
  ) throws(AdapterError) -> Value {
    let value = value(name)
    if let match = accepted.first(where: { $0.key == value }) { return match.value }
    throw Self.unknownValue(name, value, accepted: accepted.map(\.key))
  }

  /// The value (or default) as one of the cases of `Value`, spelled as their raw values.
  public func choice<Value: CaseIterable & RawRepresentable>(
    _ name: String, of: Value.Type = Value.self
  ) throws(AdapterError) -> Value where Value.RawValue == String {
    let value = value(name)
    if let match = Value(rawValue: value) { return match }
    throw Self.unknownValue(name, value, accepted: Value.allCases.map(\.rawValue))
  }

  /// A `true` or `false` setting.
  public func flag(_ name: String) throws(AdapterError) -> Bool {
    try choice(name, ["true": true, "false": false])
  }

  /// "setting NAME is missing; it is required".
  public static func missing(_ name: String) -> AdapterError {
    AdapterError("setting \(name) is missing; it is required")
  }

  /// "setting NAME has the unknown value "X"; accepted: A, B, C".
  public static func unknownValue(_ name: String, _ value: String, accepted: [String])
    -> AdapterError
  {
    AdapterError(
      "setting \(name) has the unknown value \(Message.quoted(value)); accepted: "
        + accepted.joined(separator: ", "))
  }

  private func definition(_ name: String) -> SettingDefinition? {
    definitions.first { $0.nameText == name }
  }
}

/// The settings every built-in adapter shares: where the backend is and what its codes mean.
public struct BackendSettings: Sendable {
  /// `base_url`: http:// or https://, without its trailing slashes.
  public let baseURL: String
  public let loginPath: String
  /// Without it CHECK trusts the local expiry (OK without a request).
  public let checkPath: String?
  /// Without it LOGOUT is local only (OK without a request).
  public let logoutPath: String?
  public let codes: ErrorCodes

  /// The shared settings' definitions, for an adapter's table.
  public static let definitions: [SettingDefinition] = [
    SettingDefinition(
      "base_url", "Base URL of the API, e.g. https://id.example.com/api"),
    SettingDefinition(
      "login_path", "Path of the login request below base_url", flags: .optional,
      default: "login"),
    SettingDefinition(
      "check_path",
      "Path that checks a token; without it the local expiry decides", flags: [.optional, .sessionCheck]),
    SettingDefinition(
      "logout_path", "Path that ends a session; without it logout is local only",
      flags: .optional),
    SettingDefinition(
      "codes", "Backend error codes: CODE=expired|kicked|upgrade|wrong_password, comma-separated",
      flags: .optional, default: "-100=expired,-101=kicked,-99=upgrade"),
  ]

  public init(_ settings: Settings) throws(AdapterError) {
    baseURL = try URLBuilder.checkedBase(settings.required("base_url"), setting: "base_url")
    loginPath = settings.value("login_path")
    checkPath = settings.given("check_path")
    logoutPath = settings.given("logout_path")
    codes = try ErrorCodes(parsing: settings.value("codes"))
  }

  /// Whether requests go out unencrypted (base_url starts with http://).
  public var isPlainHTTP: Bool { URLBuilder.isPlainHTTP(baseURL) }

  /// base_url joined with `path`.
  public func url(_ path: String) -> String { URLBuilder.join(baseURL, path) }
}
