import SecretMemory

/// One adapter, in Swift terms: what it is, which settings it takes, and how it makes sessions.
///
/// A plugin declares a type conforming to `Adapter` and exports it with `ExportedAdapter`;
/// AdapterKit turns it into the C descriptor and runs the step machine around its sessions.
public protocol Adapter {
  /// Equals the library's file name without ".so", e.g. "plain".
  static var name: StaticString { get }
  /// The adapter's own version, e.g. "1.0.0".
  static var version: StaticString { get }
  /// One line: which backends it speaks to.
  static var summary: StaticString { get }
  /// The settings a backend using this adapter can (or must) have.
  static var settings: [SettingDefinition] { get }
  /// Whether CHECK asks the backend only when a setting flagged `.sessionCheck` has a value
  /// (ACC_ADAPTER_CHECK_DECLARED, ABI 1.2): the host then proves the session of a backend
  /// without one by its token and expiry, without loading the adapter. False unless said.
  static var declaresSessionCheck: Bool { get }

  /// Checks the settings and makes the session for `configuration.operation`.
  ///
  /// Called at the first step, for every operation, VALIDATE included: a thrown error is the
  /// step's ERROR. For VALIDATE the session is made and dropped, never started.
  static func makeSession(
    for configuration: SessionConfiguration, host: any HostServices
  ) throws(AdapterError) -> any AdapterSession

  /// What LOGIN needs with `settings` (the backend's settings that are not secret): the
  /// descriptor's login_needs (ABI 1.3). Pure and quick: no network, no state. `.password`
  /// unless said, as for adapters older than 1.3.
  static func loginNeeds(settings: Settings) -> LoginNeeds
}

extension Adapter {
  public static var declaresSessionCheck: Bool { false }

  public static func loginNeeds(settings: Settings) -> LoginNeeds { .password }
}

/// What LOGIN needs (ACC_LOGIN_*, ABI 1.3).
public struct LoginNeeds: OptionSet, Sendable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// The account's password (ACC_LOGIN_PASSWORD).
  public static let password = LoginNeeds(rawValue: 0x1)
  /// A person who sees a message and acts on it elsewhere (ACC_LOGIN_PERSON): the session
  /// returns `.show` during LOGIN.
  public static let person = LoginNeeds(rawValue: 0x2)
}

/// One operation's step machine. AdapterKit calls `start` once, then `resume` with the response
/// to each request `start` or `resume` asked to send, until one of them returns a final result.
public protocol AdapterSession: AnyObject {
  /// The first step: a request to send, or the result right away.
  func start() throws(AdapterError) -> StepResult
  /// The next step, given the backend's answer to the last request sent.
  func resume(with response: Response) throws(AdapterError) -> StepResult
  /// The next step after a `.show` (ABI 1.3): the host has shown the message to a person.
  /// Only a session that returns `.show` is asked; the default is an error.
  func resumeAfterShowing() throws(AdapterError) -> StepResult
}

extension AdapterSession {
  public func resumeAfterShowing() throws(AdapterError) -> StepResult {
    .error("the adapter showed a message it has no next step for")
  }
}

/// A setting the descriptor declares (acc_setting).
public struct SettingDefinition: Sendable {
  /// Lowercase [a-z0-9_], e.g. "base_url".
  public let name: StaticString
  /// One line for humans.
  public let label: StaticString
  public let flags: SettingFlags
  /// The default used when the setting is optional and left out; empty when none.
  public let defaultValue: StaticString

  public init(
    _ name: StaticString, _ label: StaticString, flags: SettingFlags = [],
    default defaultValue: StaticString = ""
  ) {
    self.name = name
    self.label = label
    self.flags = flags
    self.defaultValue = defaultValue
  }

  /// The name as a `String`.
  public var nameText: String { name.description }
  /// The default as a `String`; empty when none.
  public var defaultText: String { defaultValue.description }
}

/// ACC_SETTING_* flags.
public struct SettingFlags: OptionSet, Sendable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// A key: prompted for, kept in the Secret Service, never printed (ACC_SETTING_SECRET).
  public static let secret = SettingFlags(rawValue: 0x1)
  /// May be left out; the default applies (ACC_SETTING_OPTIONAL).
  public static let optional = SettingFlags(rawValue: 0x2)
  /// May differ per account (ACC_SETTING_PER_ACCOUNT, reserved).
  public static let perAccount = SettingFlags(rawValue: 0x4)
  /// When the backend gives it a value, LOGIN needs a one-time code, which the host hands
  /// over in `SessionConfiguration.oneTimeCode` (ACC_SETTING_ONE_TIME_CODE, ABI 1.1).
  public static let oneTimeCode = SettingFlags(rawValue: 0x8)
  /// CHECK asks the backend only when this setting has a value (ACC_SETTING_SESSION_CHECK,
  /// ABI 1.2; with `Adapter.declaresSessionCheck`).
  public static let sessionCheck = SettingFlags(rawValue: 0x10)
}

/// What a session is asked to do (ACC_OP_*).
public enum Operation: Int32, Sendable, CustomStringConvertible {
  case login = 1
  case check = 2
  case logout = 3
  case call = 4
  case validate = 5
  /// Renew the session with `SessionConfiguration.refreshToken` (ABI 1.3).
  case refresh = 6

  public var description: String {
    switch self {
    case .login: "LOGIN"
    case .check: "CHECK"
    case .logout: "LOGOUT"
    case .call: "CALL"
    case .validate: "VALIDATE"
    case .refresh: "REFRESH"
    }
  }
}

/// A name and its value: a header, a session value, a call parameter.
public struct Pair: Equatable, Sendable {
  public var name: String
  public var value: String

  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// A name and a secret value: a header that carries credentials.
public struct SecretPair: Equatable, Sendable {
  public var name: String
  public var value: SecretBytes

  public init(_ name: String, _ value: SecretBytes) {
    self.name = name
    self.value = value
  }
}

/// An HTTP request for the host to perform (acc_request).
public struct Request: Equatable, Sendable {
  /// "GET", "POST", ...
  public var method: String
  /// Absolute, query string included and percent-encoded.
  public var url: String
  public var headers: [Pair]
  /// Sent as is; it may carry a password, hence secret bytes.
  public var body: SecretBytes
  /// Headers that carry credentials (Authorization), sent after `headers`.
  public var secretHeaders: [SecretPair]

  public init(
    method: String, url: String, headers: [Pair] = [], body: SecretBytes = .empty,
    secretHeaders: [SecretPair] = []
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.secretHeaders = secretHeaders
  }
}

/// The backend's answer to the last request (acc_response).
public struct Response: Sendable {
  public var status: Int32
  /// Names lowercased by the host.
  public var headers: [Pair]
  public var body: [UInt8]

  public init(status: Int32, headers: [Pair] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }
}

/// What one step produced (ACC_STEP_* and the fields of acc_step_output).
public enum StepResult: Equatable, Sendable {
  /// Perform the request and call again with the response; after a pause of
  /// `delayMilliseconds` (at most `maximumDelayMilliseconds`; ABI 1.3, ignored by older hosts).
  case send(Request, delayMilliseconds: UInt32 = 0)
  /// The operation succeeded. LOGIN and REFRESH fill token, expiresIn and sessionValues, and
  /// refreshToken when the backend gave one (ABI 1.3; older hosts do not take it); CHECK may
  /// fill expiresIn; CALL fills body.
  case ok(
    token: String = "", expiresIn: Int64 = 0, sessionValues: [Pair] = [], body: [UInt8] = [],
    message: String = "", refreshToken: SecretBytes = .empty)
  /// LOGIN only, at most once, of an adapter whose `loginNeeds` says `.person` (ABI 1.3): the
  /// host shows a person `message` and `link` and has them `expiresIn` seconds (1 to 3600),
  /// then the session's `resumeAfterShowing` gives the next step.
  case show(message: String, link: String, expiresIn: Int64)
  /// The backend rejected the user name or password.
  case wrongPassword(String)
  /// The token expired.
  case sessionExpired(String)
  /// Another login took the session over.
  case kicked(String)
  /// The backend wants a newer client; `link` is where to get it.
  case upgradeRequired(String, link: String)
  /// Anything else: bad settings, a malformed reply.
  case error(String)

  /// OK with nothing to report.
  public static var ok: StepResult { .ok() }

  /// The longest pause a SEND may ask for (the header's bound on delay_ms).
  public static let maximumDelayMilliseconds: UInt32 = 60_000
  /// The bounds of a SHOW's expiresIn, in seconds.
  public static let showSeconds: ClosedRange<Int64> = 1...3600

  /// Whether the step machine ends with this result (everything but SEND and SHOW).
  public var isFinal: Bool {
    switch self {
    case .send, .show: false
    default: true
    }
  }
}

/// Why an operation failed: becomes an ACC_STEP_ERROR with `message` as its one line.
public struct AdapterError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }

  /// REFRESH asked of an adapter that never returns a refresh token (the host asks it only of
  /// an account that holds one).
  public static let noRefresh = AdapterError(
    "this adapter keeps no refresh tokens, so it cannot refresh a session; log in again")
}
