import AdapterKit
import CAccountsAdapter
import SecretMemory

/// The library's one export: the descriptor of the signed adapter.
@_cdecl("accounts_adapter_v1")
public func accountsAdapterV1(_ hostABIVersion: UInt32) -> UnsafePointer<acc_adapter>? {
  exported.descriptor(forHost: hostABIVersion)
}

private let exported = ExportedAdapter(SignedAdapter.self) { config in
  newSession(SignedAdapter.self, config)
}

/// The seeds' signed-request API: every request, login included, carries app_id, plat, ver,
/// a random nonce, a timestamp and an MD5 signature over all of them and a private key.
enum SignedAdapter: Adapter {
  static let name: StaticString = "signed"
  static let version: StaticString = "1.0.0"
  static let summary: StaticString =
    "Signed API (app_id, rand, timestamp, MD5 sign with a private key) for every request"

  /// CHECK asks the backend only when check_path is set (`BackendSettings`).
  static let declaresSessionCheck = true
  static let settings =
    BackendSettings.definitions + [
      SettingDefinition("app_id", "The application id the backend issued"),
      SettingDefinition("private_key", "The application's private signing key", flags: .secret),
      SettingDefinition("plat", "Platform name sent as plat", flags: .optional, default: "linux"),
      SettingDefinition("ver", "Client version sent as ver, e.g. 1.0"),
      SettingDefinition(
        "user_param", "Login field carrying the user name", flags: .optional, default: "phoneNo"),
      SettingDefinition(
        "password_encoding", "How the login sends the password: plain or md5", flags: .optional,
        default: "plain"),
      OneTimeCodeField.definition(
        "otp_param",
        "Login parameter carrying the current one-time (TOTP) code, signed like the others, e.g. otp"),
    ]

  static func makeSession(for configuration: SessionConfiguration, host: any HostServices)
    throws(AdapterError) -> any AdapterSession
  {
    SignedSession(
      configuration: configuration, settings: try SignedSettings(configuration.settings),
      host: host)
  }
}

/// The signed adapter's settings, checked.
struct SignedSettings {
  let backend: BackendSettings
  let appID: String
  let privateKey: SecretBytes
  let platform: String
  let version: String
  let userParameter: String
  let hashesPassword: Bool
  /// `otp_param`: the login's one-time code goes in this parameter; nil sends none.
  let oneTimeCodeParameter: OneTimeCodeField?

  init(_ settings: Settings) throws(AdapterError) {
    backend = try BackendSettings(settings)
    appID = try settings.required("app_id")
    privateKey = try settings.requiredSecret("private_key")
    platform = settings.value("plat")
    version = try settings.required("ver")
    userParameter = settings.value("user_param")
    hashesPassword = try settings.choice("password_encoding", ["plain": false, "md5": true])
    guard !SignedSession.adapterFields.contains(userParameter) else {
      throw AdapterError(
        "setting user_param has the value \(Message.quoted(userParameter)), which the signed "
          + "adapter sends itself; choose another field name")
    }
    oneTimeCodeParameter = try OneTimeCodeField(
      settings, setting: "otp_param", taken: Array(SignedSession.adapterFields) + [userParameter])
  }
}

/// One operation: a single signed request and its reply.
final class SignedSession: AdapterSession {
  /// The fields the adapter sets on every request; a call may not set them itself.
  static let adapterFields: Set<String> = [
    "app_id", "plat", "ver", "rand", "timestamp", "userId", "token", "sign", "private_key",
    "password",
  ]

  private let configuration: SessionConfiguration
  private let settings: SignedSettings
  private let host: any HostServices

  init(configuration: SessionConfiguration, settings: SignedSettings, host: any HostServices) {
    self.configuration = configuration
    self.settings = settings
    self.host = host
  }

  func start() throws(AdapterError) -> StepResult {
    let backend = settings.backend
    switch configuration.operation {
    case .login:
      let password =
        settings.hashesPassword
        ? try host.md5Hex(configuration.password) : configuration.password
      var own = [
        FormField(settings.userParameter, configuration.user),
        FormField("password", secret: password),
      ]
      // Signed like every other parameter.
      if let code = settings.oneTimeCodeParameter { own.append(try code.field(configuration)) }
      return .send(try signedRequest(method: "POST", path: backend.loginPath, own: own))
    case .check:
      guard let path = backend.checkPath else { return .ok }
      return .send(try signedRequest(method: "POST", path: path, own: []))
    case .logout:
      guard let path = backend.logoutPath else { return .ok }
      return .send(try signedRequest(method: "POST", path: path, own: []))
    case .call:
      var seen: Set<String> = []
      for parameter in configuration.parameters {
        guard !Self.adapterFields.contains(parameter.name) else {
          throw AdapterError(
            "the parameter \(Message.quoted(parameter.name)) is set by the signed adapter itself")
        }
        guard seen.insert(parameter.name).inserted else {
          throw AdapterError("the parameter \(Message.quoted(parameter.name)) is given twice")
        }
      }
      return .send(
        try signedRequest(
          method: try configuration.callMethod(), path: configuration.path,
          own: configuration.parameters.map { FormField($0.name, $0.value) }))
    case .validate:
      return .ok
    case .refresh:
      throw AdapterError.noRefresh
    }
  }

  func resume(with response: Response) throws(AdapterError) -> StepResult {
    ReplyInterpreter(codes: settings.backend.codes, fields: .standard)
      .interpret(response, for: configuration.operation)
  }

  /// The request with the adapter's fields, the operation's own, and `sign` over all of them:
  /// one rand and one timestamp, the same in the signature and on the wire.
  private func signedRequest(method: String, path: String, own: [FormField])
    throws(AdapterError) -> Request
  {
    var fields = [
      FormField("app_id", settings.appID),
      FormField("plat", settings.platform),
      FormField("ver", settings.version),
      FormField("rand", try RandomText.make(count: 16, host: host)),
      FormField("timestamp", try host.civilTimeNow(in: .local).signedTimestamp),
    ]
    if configuration.operation != .login {
      if let userID = configuration.sessionValue("userId"), !userID.isEmpty {
        fields.append(FormField("userId", userID))
      }
      let token = try configuration.headerSafeToken()
      if !token.isEmpty { fields.append(FormField("token", token)) }
    }
    fields += own
    let sign = try Signature.sign(fields, privateKey: settings.privateKey, host: host)
    fields.append(FormField("sign", sign))
    return FormRequest.make(method: method, url: settings.backend.url(path), fields)
  }
}
