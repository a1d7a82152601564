import SecretMemory

/// What a session is for: the adapter's copy of acc_session_config, owned by the session.
public struct SessionConfiguration: Sendable {
  public var operation: Operation
  /// The backend's settings, with the adapter's defaults.
  public var settings: Settings
  /// The account's user name (empty for VALIDATE).
  public var user: String
  /// LOGIN: the password, wiped when the session is freed. Empty otherwise.
  public var password: SecretBytes
  /// CHECK, LOGOUT, CALL: the token LOGIN returned.
  public var token: String
  /// CHECK, LOGOUT, CALL: the session values LOGIN returned (e.g. userId).
  public var sessionValues: [Pair]
  /// CALL: the method, e.g. "POST".
  public var method: String
  /// CALL: the path below the backend's base, e.g. "user/info".
  public var path: String
  /// CALL: the call's parameters, in the order the user gave them.
  public var parameters: [Pair]
  /// LOGIN: the current one-time code when the backend needs one (ABI 1.1; empty from a 1.0
  /// host, whose configuration is too short to have it), wiped when the session is freed.
  public var oneTimeCode: SecretBytes
  /// REFRESH: the refresh token to renew with; LOGOUT: the account's refresh token, to revoke
  /// (ABI 1.3; empty from an older host, whose configuration is too short to have it), wiped
  /// when the session is freed.
  public var refreshToken: SecretBytes

  public init(
    operation: Operation, settings: Settings, user: String = "", password: SecretBytes = .empty,
    token: String = "", sessionValues: [Pair] = [], method: String = "", path: String = "",
    parameters: [Pair] = [], oneTimeCode: SecretBytes = .empty, refreshToken: SecretBytes = .empty
  ) {
    self.oneTimeCode = oneTimeCode
    self.refreshToken = refreshToken
    self.operation = operation
    self.settings = settings
    self.user = user
    self.password = password
    self.token = token
    self.sessionValues = sessionValues
    self.method = method
    self.path = path
    self.parameters = parameters
  }

  /// The session value `name`, or nil.
  public func sessionValue(_ name: String) -> String? {
    sessionValues.first { $0.name == name }?.value
  }

  /// The token, checked to be safe in an HTTP header (no control characters).
  public func headerSafeToken() throws(AdapterError) -> String {
    guard token.unicodeScalars.allSatisfy({ !Message.isControl($0) }) else {
      throw AdapterError("the stored token contains control characters; log in again")
    }
    return token
  }

  /// The CALL's method in uppercase, checked to be an HTTP token of letters.
  public func callMethod() throws(AdapterError) -> String {
    let method = method.uppercased()
    guard !method.isEmpty, method.utf8.count <= 20,
      method.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
    else {
      throw AdapterError("the HTTP method \(Message.quoted(self.method)) is not a method name")
    }
    return method
  }
}
