import AccountsContract
import AccountsJSON

/// What a hook runs after: a command that succeeded.
public enum HookEvent: String, Sendable, CaseIterable {
  case `switch`
  case login
  case logout
}

/// A command from the user's own config.json run after `switch`, `login` or `logout` succeeds.
/// Hooks live nowhere else: nothing inside a directory or repository can add or run one.
public struct Hook: Sendable, Equatable {
  /// Which accounts a hook is for.
  public enum Scope: Sendable, Equatable {
    case every
    case backend(String)
    case account(AccountID)

    /// Global hooks run first, then per-backend, then per-account.
    var rank: Int {
      switch self {
      case .every: 0
      case .backend: 1
      case .account: 2
      }
    }

    public func matches(_ id: AccountID) -> Bool {
      switch self {
      case .every: true
      case .backend(let name): id.backend == name
      case .account(let account): id == account
      }
    }
  }

  public static let defaultTimeout = 10
  /// The longest a hook may be given (`--timeout`): an hour, as for network deadlines.
  public static let timeoutLimit = 3600

  public var event: HookEvent
  /// Run as `/bin/sh -c command`.
  public var command: String
  public var scope: Scope
  /// ACCOUNTS_TOKEN is in its environment; without this no secret is.
  public var withToken: Bool
  /// Whole seconds before its process group is killed (config.json holds integers only).
  public var timeout: Int
  /// Members of the hook's object that this version does not know, kept as they were.
  public var unknownFields: JSONObject

  public init(
    event: HookEvent, command: String, scope: Scope = .every, withToken: Bool = false,
    timeout: Int = Hook.defaultTimeout, unknownFields: JSONObject = [:]
  ) {
    self.event = event
    self.command = command
    self.scope = scope
    self.withToken = withToken
    self.timeout = timeout
    self.unknownFields = unknownFields
  }
}

/// A hook with its number in `accounts hooks` (1 for the first added).
public struct NumberedHook: Sendable, Equatable {
  public var number: Int
  public var hook: Hook
}

extension Configuration {
  /// Every hook with its number, in the order added.
  public var numberedHooks: [NumberedHook] {
    hooks.enumerated().map { NumberedHook(number: $0.offset + 1, hook: $0.element) }
  }

  /// The hooks to run after `event` for `id`, in the order they run: the global ones, then
  /// those for its backend, then those for the account, each group in the order added.
  public func hooks(after event: HookEvent, for id: AccountID) -> [NumberedHook] {
    let matching = numberedHooks.filter { $0.hook.event == event && $0.hook.scope.matches(id) }
    // A stable sort on the rank keeps the order added within each rank.
    return matching.enumerated().sorted {
      ($0.element.hook.scope.rank, $0.offset) < ($1.element.hook.scope.rank, $1.offset)
    }.map(\.element)
  }
}

/// A hook as config.json holds it (see `ConfigFormat`).
enum HookFormat {
  static let keys: Set<String> = ["event", "command", "backend", "account", "with_token", "timeout"]

  static func encode(_ hook: Hook) -> JSONValue {
    var object: JSONObject = [
      "event": .string(hook.event.rawValue),
      "command": .string(hook.command),
      "with_token": .bool(hook.withToken),
      "timeout": .number(JSONNumber(hook.timeout)),
    ]
    switch hook.scope {
    case .every: break
    case .backend(let name): object["backend"] = .string(name)
    case .account(let id): object["account"] = .string(id.description)
    }
    for (key, value) in hook.unknownFields where object[key] == nil { object[key] = value }
    return .object(object)
  }

  static func decode(_ entry: JSONReader) throws -> Hook {
    let eventName = try entry.string("event")
    guard let event = HookEvent(rawValue: eventName) else {
      throw JSONShapeError(path: join(entry.path, "event"), problem: "not a hook event (switch, login, logout)")
    }
    let command = try entry.string("command")
    guard !command.isEmpty, !command.utf8.contains(0) else {
      throw JSONShapeError(path: join(entry.path, "command"), problem: "not a command")
    }
    let scope: Hook.Scope
    switch (try entry.optionalString("backend"), try entry.optionalString("account")) {
    case (nil, nil): scope = .every
    case (let name?, nil):
      guard Names.isBackendName(name) else {
        throw JSONShapeError(path: join(entry.path, "backend"), problem: "not a valid backend name")
      }
      scope = .backend(name)
    case (nil, let account?):
      guard let at = account.lastIndex(of: "@"), case let user = String(account[..<at]),
        case let backend = String(account[account.index(after: at)...]),
        Names.isValidUser(user), Names.isBackendName(backend)
      else {
        throw JSONShapeError(path: join(entry.path, "account"), problem: "not USER@BACKEND")
      }
      scope = .account(AccountID(user: user, backend: backend))
    case (_?, _?):
      throw JSONShapeError(path: entry.path, problem: "a hook is for a backend or an account, not both")
    }
    let timeout = try entry.optionalInt64("timeout") ?? Int64(Hook.defaultTimeout)
    guard (1...Int64(Hook.timeoutLimit)).contains(timeout) else {
      throw JSONShapeError(path: join(entry.path, "timeout"), problem: "not between 1 and \(Hook.timeoutLimit) seconds")
    }
    var unknown = JSONObject()
    for (key, value) in try entry.asObject() where !keys.contains(key) { unknown[key] = value }
    return Hook(
      event: event, command: command, scope: scope, withToken: try entry.optionalBool("with_token") ?? false,
      timeout: Int(timeout), unknownFields: unknown)
  }
}
