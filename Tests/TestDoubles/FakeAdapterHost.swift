import AccountsContract
import AccountsCore
import AccountsSystem
import SecretMemory
import Synchronization

/// An adapter host that answers each operation from a script and records every call in order
/// ("login alice pw", "check alice T1", "call alice GET me T1", "logout alice T1"). The
/// end-to-end tests run the real host against the test backend.
public final class FakeAdapterHost: AdapterHosting, @unchecked Sendable {
  /// Answers, consumed in order; when empty, `fallback` answers.
  public var script: [AdapterOutcome] = []
  /// What an operation gets when the script is used up: a LOGIN a fresh token, the rest ok.
  public var fallback: (AdapterRequest) -> AdapterOutcome = { request in
    if case .login = request.operation { return FakeAdapterHost.loggedIn("T\(FakeAdapterHost.issued.next())") }
    return .ok(AdapterSuccess(body: "{}"))
  }
  public private(set) var calls: [String] = []
  /// The settings every adapter declares.
  public var declared: [AdapterSetting] = []
  /// When CHECK asks the backend, as `describe` and `knownSessionCheck` say it.
  public var sessionCheck: AdapterDescription.SessionCheck = .undeclared
  /// Whether `knownSessionCheck` knows it without loading (an earlier load kept it).
  public var knowsSessionCheck = false
  /// How many times an adapter was described: loaded, for the real host.
  public private(set) var loads = 0
  /// How many times `knownSessionCheck` was asked.
  public private(set) var sessionCheckAsks = 0
  /// The names of the secret settings each call was given, in order.
  public private(set) var secretSettingNames: [[String]] = []
  /// How many times the host was told a request is coming (`expectRequest`).
  public private(set) var requestsExpected = 0
  /// What a LOGIN needs, as `loginNeeds` says for every adapter.
  public var needs: LoginNeeds = .password
  /// Whether each call was given a person to show a message to, in order.
  public private(set) var personGiven: [Bool] = []
  private let lock = Mutex(())

  /// The numbers of the tokens the fallback's logins return: T2, T3, ...
  public static let issued = Counter(start: 2)

  public init() {}

  /// A successful LOGIN that returns `token`, valid for an hour, with userId 1001.
  public static func loggedIn(_ token: String, expiresIn: Int64 = 3600) -> AdapterOutcome {
    .ok(AdapterSuccess(token: secret(token), expiresIn: expiresIn, sessionValues: ["userId": "1001"]))
  }

  public func probe(_ path: String) -> AdapterEntry { AdapterEntry(path: path, name: "fake") }

  public func describe(_ name: String, in searchPath: AdapterSearchPath) throws(AdapterLoadError)
    -> AdapterDescription
  {
    lock.withLock { _ in loads += 1 }
    return AdapterDescription(
      name: name, version: "1", summary: "fake", abiVersion: 1 << 16 | 2, settings: declared, path: "/fake/\(name).so",
      sessionCheck: sessionCheck)
  }

  public func knownSessionCheck(_ name: String, in searchPath: AdapterSearchPath) -> AdapterDescription.SessionCheck? {
    lock.withLock { _ in sessionCheckAsks += 1 }
    return knowsSessionCheck ? sessionCheck : nil
  }

  public func expectRequest() { lock.withLock { _ in requestsExpected += 1 } }

  public func loginNeeds(_ name: String, settings: [String: String], in searchPath: AdapterSearchPath)
    throws(AdapterLoadError) -> LoginNeeds
  {
    needs
  }

  public func run(_ request: AdapterRequest, secretSettings: [String: SecretBytes], in searchPath: AdapterSearchPath)
    throws(AdapterLoadError) -> AdapterOutcome
  {
    // The fallback runs outside the lock: tests of concurrency put their own waits in it.
    let scripted: AdapterOutcome? = lock.withLock { _ in
      calls.append(Self.describe(request))
      personGiven.append(request.person != nil)
      secretSettingNames.append(secretSettings.keys.sorted())
      return script.isEmpty ? nil : script.removeFirst()
    }
    return scripted ?? fallback(request)
  }

  /// The operations, without their payloads: ["check", "login", "call"].
  public var operations: [String] { lock.withLock { _ in calls.map { String($0.prefix { $0 != " " }) } } }

  private static func describe(_ request: AdapterRequest) -> String {
    switch request.operation {
    case .login(let password, let code):
      "login \(request.user) \(text(password))" + (code.map { " code \(text($0))" } ?? "")
    case .check(let token): "check \(request.user) \(text(token))"
    case .logout(let token, let refreshToken):
      "logout \(request.user) \(text(token))" + (refreshToken.map { " refresh \(text($0))" } ?? "")
    case .refresh(let refreshToken): "refresh \(request.user) \(text(refreshToken))"
    case .call(let token, let method, let path, _): "call \(request.user) \(method) \(path) \(text(token))"
    case .validate: "validate"
    }
  }
}

/// A number that goes up by one each time it is read, from any thread.
public final class Counter: @unchecked Sendable {
  private var value: Int
  private let lock = Mutex(())
  public init(start: Int) { value = start }
  public func next() -> Int { lock.withLock { _ in defer { value += 1 }; return value } }
}
