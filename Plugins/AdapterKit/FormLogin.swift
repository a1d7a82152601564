import SecretMemory

/// The settings of the form-login family (the plain and hmac adapters): a form with the user
/// name and a password field, a JSON reply, the token in a header afterwards.
public struct FormLoginSettings: Sendable {
  public let backend: BackendSettings
  /// "POST" (form body) or "GET" (query string).
  public let loginMethod: String
  public let usernameField: String
  public let passwordField: String
  public let replyFields: ReplyFields
  public let tokenHeader: String
  /// `otp_field`: the login's one-time code goes in this field; nil sends none.
  public let oneTimeCodeField: OneTimeCodeField?

  /// The family's own settings' definitions, for an adapter's table (after the shared ones).
  public static let definitions: [SettingDefinition] = [
    SettingDefinition(
      "method", "HTTP method of the login request: POST (form body) or GET (query string)",
      flags: .optional, default: "POST"),
    SettingDefinition(
      "username_field", "Form field carrying the user name", flags: .optional,
      default: "username"),
    SettingDefinition(
      "password_field", "Form field carrying the password", flags: .optional,
      default: "password"),
    SettingDefinition(
      "success_field", "Reply field holding the user id, a number > 0 on success",
      flags: .optional, default: "userId"),
    SettingDefinition(
      "token_field", "Reply field holding the token", flags: .optional, default: "token"),
    SettingDefinition(
      "expires_field", "Reply field holding the token's lifetime in seconds", flags: .optional,
      default: "expiresIn"),
    SettingDefinition(
      "token_header", "Request header that carries the token", flags: .optional,
      default: "AuthorisedToken"),
    OneTimeCodeField.definition(
      "otp_field", "Form field carrying the current one-time (TOTP) code, e.g. otp; unset sends none"),
  ]

  public init(_ settings: Settings) throws(AdapterError) {
    backend = try BackendSettings(settings)
    loginMethod = try settings.choice("method", ["POST": "POST", "GET": "GET"])
    usernameField = settings.value("username_field")
    passwordField = settings.value("password_field")
    replyFields = ReplyFields(
      userID: settings.value("success_field"), token: settings.value("token_field"),
      expiresIn: settings.value("expires_field"))
    tokenHeader = settings.value("token_header")
    oneTimeCodeField = try OneTimeCodeField(
      settings, setting: "otp_field", taken: [usernameField, passwordField])
    guard Self.isHeaderName(tokenHeader) else {
      throw AdapterError(
        "setting token_header has the unknown value \(Message.quoted(tokenHeader)); accepted: "
          + "an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)")
    }
  }

  /// An RFC 9110 token: what a header name may be.
  static func isHeaderName(_ name: String) -> Bool {
    !name.isEmpty
      && name.utf8.allSatisfy { byte in
        FormEncoding.isUnreserved(byte) || "!#$%&'*+^`|".utf8.contains(byte)
      }
  }
}

/// A session of the form-login family. The adapters differ only in what the password field
/// carries, which `passwordValue` computes from the password.
public final class FormLoginSession: AdapterSession {
  private let configuration: SessionConfiguration
  private let settings: FormLoginSettings
  private let passwordValue: (SecretBytes) throws(AdapterError) -> SecretBytes

  public init(
    configuration: SessionConfiguration, settings: FormLoginSettings,
    passwordValue: @escaping (SecretBytes) throws(AdapterError) -> SecretBytes
  ) {
    self.configuration = configuration
    self.settings = settings
    self.passwordValue = passwordValue
  }

  public func start() throws(AdapterError) -> StepResult {
    let backend = settings.backend
    switch configuration.operation {
    case .login:
      var fields = [
        FormField(settings.usernameField, configuration.user),
        FormField(settings.passwordField, secret: try passwordValue(configuration.password)),
      ]
      if let code = settings.oneTimeCodeField { fields.append(try code.field(configuration)) }
      return .send(
        FormRequest.make(method: settings.loginMethod, url: backend.url(backend.loginPath), fields))
    case .check:
      guard let path = backend.checkPath else { return .ok }
      return .send(
        Request(method: "GET", url: backend.url(path), headers: try tokenHeaders()))
    case .logout:
      guard let path = backend.logoutPath else { return .ok }
      return .send(
        Request(method: "POST", url: backend.url(path), headers: try tokenHeaders()))
    case .call:
      var request = FormRequest.make(
        method: try configuration.callMethod(), url: backend.url(configuration.path),
        configuration.parameters.map { FormField($0.name, $0.value) })
      request.headers.insert(contentsOf: try tokenHeaders(), at: 0)
      return .send(request)
    case .validate:
      return .ok
    case .refresh:
      throw AdapterError.noRefresh
    }
  }

  public func resume(with response: Response) throws(AdapterError) -> StepResult {
    ReplyInterpreter(codes: settings.backend.codes, fields: settings.replyFields)
      .interpret(response, for: configuration.operation)
  }

  private func tokenHeaders() throws(AdapterError) -> [Pair] {
    [Pair(settings.tokenHeader, try configuration.headerSafeToken())]
  }
}

/// Requests that carry form fields: in the body for methods that have one, else in the query.
public enum FormRequest {
  /// Methods whose fields go in a form body (with its Content-Type); the others put them in
  /// the query string.
  public static let bodyMethods: Set<String> = ["POST", "PUT", "PATCH"]

  /// A `method` request to `url` carrying `fields`.
  public static func make(method: String, url: String, _ fields: [FormField]) -> Request {
    if bodyMethods.contains(method) {
      return Request(
        method: method, url: url, headers: [FormEncoding.contentType],
        body: FormEncoding.encode(fields))
    }
    let query = String(decoding: FormEncoding.encode(fields).unprotectedBytes, as: UTF8.self)
    return Request(method: method, url: URLBuilder.appending(query: query, to: url))
  }
}
