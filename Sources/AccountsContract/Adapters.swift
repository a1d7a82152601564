import AccountsSystem
import SecretMemory

/// The kinds of operation of the ABI (`ACC_OP_*`); the raw value names one on the wire.
public enum AdapterOperationKind: String, Sendable, CaseIterable {
  case login, check, logout, call, validate, refresh
}

/// One operation of the ABI with what it needs: the password of a LOGIN, the token of the
/// operations that use a session, the request of a CALL.
public enum AdapterOperation: Sendable {
  /// `oneTimeCode`: the current code when the backend needs one (ABI 1.1), wiped like the
  /// password.
  case login(password: SecretBytes, oneTimeCode: SecretBytes? = nil)
  /// Proves the session with the backend.
  case check(token: SecretBytes)
  /// `refreshToken`: the account's, when it holds one, for the adapter to revoke (ABI 1.3).
  case logout(token: SecretBytes, refreshToken: SecretBytes? = nil)
  /// An API request through the session: `path` relative to the backend's base URL.
  case call(token: SecretBytes, method: String, path: String, parameters: [(String, String)])
  /// The adapter's own check of the settings, without the network.
  case validate
  /// Renews the session with its refresh token, without the password (ABI 1.3).
  case refresh(refreshToken: SecretBytes)

  public var kind: AdapterOperationKind {
    switch self {
    case .login: .login
    case .check: .check
    case .logout: .logout
    case .call: .call
    case .validate: .validate
    case .refresh: .refresh
    }
  }

  /// LOGIN's password.
  public var password: SecretBytes? {
    if case .login(let password, _) = self { password } else { nil }
  }

  /// LOGIN's one-time code, when it has one.
  public var oneTimeCode: SecretBytes? {
    if case .login(_, let code) = self { code } else { nil }
  }

  /// The token of CHECK, LOGOUT and CALL.
  public var token: SecretBytes? {
    switch self {
    case .check(let token), .logout(let token, _), .call(let token, _, _, _): token
    case .login, .validate, .refresh: nil
    }
  }

  /// The refresh token of REFRESH, and of a LOGOUT that revokes one.
  public var refreshToken: SecretBytes? {
    switch self {
    case .refresh(let refreshToken): refreshToken
    case .logout(_, let refreshToken): refreshToken
    default: nil
    }
  }
}

extension AdapterOperation: Equatable {
  /// Secrets compare by their bytes; the parameters are tuples, which leave `==` to write by hand.
  public static func == (lhs: AdapterOperation, rhs: AdapterOperation) -> Bool {
    switch (lhs, rhs) {
    case (.login(let left, let leftCode), .login(let right, let rightCode)):
      left == right && leftCode == rightCode
    case (.check(let left), .check(let right)), (.refresh(let left), .refresh(let right)):
      left == right
    case (.logout(let left, let leftRefresh), .logout(let right, let rightRefresh)):
      left == right && leftRefresh == rightRefresh
    case (.call(let leftToken, let leftMethod, let leftPath, let leftParameters),
      .call(let rightToken, let rightMethod, let rightPath, let rightParameters)):
      leftToken == rightToken && leftMethod == rightMethod && leftPath == rightPath
        && leftParameters.elementsEqual(rightParameters, by: ==)
    case (.validate, .validate): true
    default: false
    }
  }
}

/// One operation for an adapter to run on a backend, for a user. The backend's secret settings
/// travel beside it (`AdapterHosting.run`).
public struct AdapterRequest: Equatable, Sendable {
  public var adapter: String
  public var backend: String
  /// The backend's non-secret settings.
  public var settings: [String: String]
  public var user: String
  /// What LOGIN returned besides the token (`userId`...), for the operations after it.
  public var sessionValues: [String: String]
  public var operation: AdapterOperation
  /// The whole operation's deadline, network included (until a person is shown a message:
  /// then the adapter says how long they have).
  public var timeout: Double
  /// Where a LOGIN that needs a person shows them what to do (ABI 1.3's SHOW); nil where no
  /// person can see it, and then such a LOGIN is refused before the adapter runs.
  public var person: PersonChannel?

  public init(
    adapter: String, backend: String, settings: [String: String], user: String = "",
    sessionValues: [String: String] = [:], operation: AdapterOperation, timeout: Double, person: PersonChannel? = nil
  ) {
    self.person = person
    self.adapter = adapter
    self.backend = backend
    self.settings = settings
    self.user = user
    self.sessionValues = sessionValues
    self.operation = operation
    self.timeout = timeout
  }
}

/// Where a person sees what a LOGIN asks of them (ABI 1.3's SHOW): a terminal. Requests are
/// equal whatever their channel: it says where a message goes, not what the request is.
public final class PersonChannel: Sendable, Equatable {
  private let shower: @Sendable (PersonMessage) -> Void

  public init(show: @escaping @Sendable (PersonMessage) -> Void) {
    self.shower = show
  }

  /// Shows `message`; its text is the adapter's, already stripped of control characters.
  public func show(_ message: PersonMessage) { shower(message) }

  public static func == (left: PersonChannel, right: PersonChannel) -> Bool { true }
}

/// What an adapter asks the host to show a person: what to do, where, and for how long.
public struct PersonMessage: Sendable, Equatable {
  /// The account the login is for, "alice@corp".
  public var account: String
  /// One line, e.g. "enter the code WDJB-MJHT".
  public var text: String
  /// The URL to open; empty when none.
  public var link: String
  /// Seconds the person has.
  public var expiresIn: Int64

  public init(account: String, text: String, link: String, expiresIn: Int64) {
    self.account = account
    self.text = text
    self.link = link
    self.expiresIn = expiresIn
  }
}

/// What a LOGIN needs with a backend's settings, as its adapter says (ABI 1.3's login_needs).
public struct LoginNeeds: OptionSet, Sendable, Hashable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// The account's password (remembered, given, or asked for).
  public static let password = LoginNeeds(rawValue: 0x1)
  /// A person who approves the login elsewhere, shown a message on a terminal.
  public static let person = LoginNeeds(rawValue: 0x2)
}

/// How an operation ended, in the terms of the ABI's step results.
extension AdapterOutcome {
  /// LOGIN's token, when the operation succeeded with one.
  public var token: SecretBytes? {
    if case .ok(let success) = self { success.token } else { nil }
  }
}

public enum AdapterOutcome: Equatable, Sendable {
  case ok(AdapterSuccess)
  case wrongPassword(message: String)
  case sessionExpired(message: String)
  case kicked(message: String)
  case upgradeRequired(message: String, link: String)
  /// The adapter said ERROR (bad settings, a malformed reply), or the network failed.
  case backendError(message: String)
  /// The adapter misbehaved: unknown result, too many steps, no answer in time, garbage.
  case adapterFailed(message: String)

  /// "ok", "wrong_password", ...: for `--json` and the wire.
  public var name: String {
    switch self {
    case .ok: "ok"
    case .wrongPassword: "wrong_password"
    case .sessionExpired: "session_expired"
    case .kicked: "kicked"
    case .upgradeRequired: "upgrade_required"
    case .backendError: "backend_error"
    case .adapterFailed: "adapter_failed"
    }
  }
}

/// What a successful operation returned.
public struct AdapterSuccess: Equatable, Sendable {
  /// LOGIN, REFRESH: the session's token, when the backend gave one.
  public var token: SecretBytes?
  /// LOGIN, REFRESH: a refresh token to keep (ABI 1.3); nil after a REFRESH: the one given
  /// stays good.
  public var refreshToken: SecretBytes?
  /// Seconds the token stays valid; 0 when unknown.
  public var expiresIn: Int64
  public var sessionValues: [String: String]
  /// CALL: the reply body.
  public var body: String?
  public var message: String

  public init(
    token: SecretBytes? = nil, expiresIn: Int64 = 0, sessionValues: [String: String] = [:], body: String? = nil,
    message: String = "", refreshToken: SecretBytes? = nil
  ) {
    self.token = token
    self.refreshToken = refreshToken
    self.expiresIn = expiresIn
    self.sessionValues = sessionValues
    self.body = body
    self.message = message
  }
}

/// Why no adapter could run.
public enum AdapterLoadError: UserFacingError, Equatable {
  /// libAccountsPrivate.so is missing or does not fit; `fix` is the refusal's own, if it has one.
  case hostMissing(detail: String, fix: String? = nil)
  case notFound(name: String, searched: [String], known: [String])
  case refused(path: String, reason: String)

  public var status: ExitStatus { .adapterFailed }

  public var message: String {
    switch self {
    case .hostMissing(let detail, _): "cannot load the adapter host: \(detail)"
    case .notFound(let name, let searched, _):
      "no adapter '\(name)' in \(searched.isEmpty ? "any adapter directory" : searched.joined(separator: ":"))"
    case .refused(let path, let reason): "adapter \(path) refused: \(reason)"
    }
  }

  public var fix: String? {
    switch self {
    case .hostMissing(_, let fix?): fix
    case .hostMissing: "reinstall accounts (`make install`), or run it from its build directory"
    case .notFound(let name, _, let known):
      if case let close = Suggestions.closest(to: name, in: known), !close.isEmpty {
        "did you mean \(Suggestions.phrase(close))? `accounts adapters` lists them"
      } else {
        "`accounts adapters` lists the adapters found; put NAME.so in ~/.local/share/accounts/adapters"
      }
    case .refused: nil
    }
  }
}

/// Finds, loads and runs adapters. The real one lives in libAccountsPrivate.so.
///
/// Thread-safe: every method may be called from several threads at once (`status --jobs` runs
/// one operation per account in parallel). Each call works on its own memory; what is shared
/// (the loaded adapter files, libcurl's global state, the host services) is set up once and
/// only read afterwards.
public protocol AdapterHosting: AnyObject, Sendable {
  /// One adapter file, loaded and described or refused: run in a child process by the
  /// commands that list adapters, since a broken adapter can take the process down.
  func probe(_ path: String) -> AdapterEntry
  /// The adapter called `name`, loaded.
  func describe(_ name: String, in searchPath: AdapterSearchPath) throws(AdapterLoadError) -> AdapterDescription
  /// Runs one operation with the backend's secret settings (by setting name); a LOGIN that
  /// succeeds carries its token in the `AdapterSuccess`.
  func run(_ request: AdapterRequest, secretSettings: [String: SecretBytes], in searchPath: AdapterSearchPath)
    throws(AdapterLoadError) -> AdapterOutcome
  /// When the adapter called `name` says its CHECK asks the backend, known without loading it
  /// (from an earlier load of the same file); nil when that cannot be known now.
  func knownSessionCheck(_ name: String, in searchPath: AdapterSearchPath) -> AdapterDescription.SessionCheck?
  /// A request to the backend is coming: the host may start loading what sending it needs,
  /// in the background, while the caller reads the session. A hint; ignoring it is correct.
  func expectRequest()
  /// What a LOGIN of the adapter called `name` needs with the backend's non-secret `settings`.
  func loginNeeds(_ name: String, settings: [String: String], in searchPath: AdapterSearchPath)
    throws(AdapterLoadError) -> LoginNeeds
}

extension AdapterHosting {
  public func expectRequest() {}

  public func knownSessionCheck(_ name: String, in searchPath: AdapterSearchPath) -> AdapterDescription.SessionCheck? {
    nil
  }
}
