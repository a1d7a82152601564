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
}

extension Adapter {
  public static var declaresSessionCheck: Bool { false }
}

/// One operation's step machine. AdapterKit calls `start` once, then `resume` with the response
/// to each request `start` or `resume` asked to send, until one of them returns a final result.
public protocol AdapterSession: AnyObject {
  /// The first step: a request to send, or the result right away.
  func start() throws(AdapterError) -> StepResult
  /// The next step, given the backend's answer to the last request sent.
  func resume(with response: Response) throws(AdapterError) -> StepResult
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

  public var description: String {
    switch self {
    case .login: "LOGIN"
    case .check: "CHECK"
    case .logout: "LOGOUT"
    case .call: "CALL"
    case .validate: "VALIDATE"
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

/// An HTTP request for the host to perform (acc_request).
public struct Request: Equatable, Sendable {
  /// "GET", "POST", ...
  public var method: String
  /// Absolute, query string included and percent-encoded.
  public var url: String
  public var headers: [Pair]
  /// Sent as is; it may carry a password, hence secret bytes.
  public var body: SecretBytes

  public init(method: String, url: String, headers: [Pair] = [], body: SecretBytes = .empty) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
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
  /// Perform the request and call again with the response.
  case send(Request)
  /// The operation succeeded. LOGIN fills token, expiresIn and sessionValues; CHECK may fill
  /// expiresIn; CALL fills body.
  case ok(
    token: String = "", expiresIn: Int64 = 0, sessionValues: [Pair] = [], body: [UInt8] = [],
    message: String = "")
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

  /// Whether the step machine ends with this result (everything but SEND).
  public var isFinal: Bool {
    if case .send = self { return false }
    return true
  }
}

/// Why an operation failed: becomes an ACC_STEP_ERROR with `message` as its one line.
public struct AdapterError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}
