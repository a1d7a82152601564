import Foundation
import TestSupport
import Testing

/// One test's world, and the one way to build it: a sandbox per machine (its own keyring, of
/// either provider), the project's test backend, accounts' backends, saved accounts with
/// remembered passwords and tags, and a Redis the machines share as their lease store. Each
/// step runs the built binary on every machine and returns the fixture, so a world reads as
/// the chain that builds it:
///
///     let world = try Fixture().serving(users: ["qa1"]).addingServedBackend("corp").saving(["qa1"], tags: ["qa"])
///     defer { world.close() }
///
/// The worlds several suites share are built below; what one suite alone builds or asks of its
/// world (a rule's directories, a git server, the token refresher's files) is an extension of
/// `Fixture` in that suite's file.
final class Fixture {
  /// One sandbox per machine: a single one (`sandbox`) except in the tests of a shared lease
  /// store.
  let machines: [Sandbox]
  /// The test backends `serving` started, in order.
  private(set) var servers: [TestBackend] = []
  private var redisServer: RedisServer?
  /// The password the Redis of `runningRedis` asks for, if any.
  private(set) var redisPassword: String?
  private var closers: [() -> Void] = []

  init(
    _ provider: SecretServiceProvider = .gnomeKeyring, keyring settings: [String: String] = [:],
    machines count: Int = 1
  ) throws {
    machines = try (0..<count).map { _ in try Sandbox(provider: provider, settings: settings) }
  }

  /// The first machine's sandbox.
  var sandbox: Sandbox { machines[0] }

  /// The test backend `serving` started first.
  var backend: TestBackend {
    precondition(!servers.isEmpty, "the fixture has no test backend: build it with serving()")
    return servers[0]
  }

  /// The redis-server `runningRedis` started.
  var redis: RedisServer {
    guard let redisServer else { preconditionFailure("the fixture has no Redis: build it with runningRedis()") }
    return redisServer
  }

  /// The first sandbox's own directory: its keyring, its XDG directories, and whatever a test
  /// writes for itself.
  var root: String { sandbox.keyring.root }

  /// The first sandbox's HOME.
  var home: String { sandbox.environment["HOME"]! }

  /// Has `close` run `action` first: stopping what a suite started for itself beside the
  /// fixture (a git server).
  func onClose(_ action: @escaping () -> Void) { closers.append(action) }

  /// Stops what the fixture started, the suite's own services, Redis and the test backends first.
  func close() {
    for action in closers { action() }
    closers = []
    redisServer?.stop()
    for server in servers { server.stop() }
    for machine in machines { machine.close() }
  }
}

// MARK: - Building

extension Fixture {
  /// The password `serving(users:)` gives each of its users.
  static func password(of user: String) -> String { "pw-\(user)" }

  /// Starts a test backend on 127.0.0.1 whose tokens last `tokenLifetime` seconds (an hour
  /// unless told), with `arguments` (--user NAME:PASSWORD, --otp-user, --app ...) and `users`,
  /// each with `password(of:)`. Without a user given, its own: alice (123456, userId 1001), bob
  /// (hunter2, 1002) and carol (secret3, 1003).
  @discardableResult
  func serving(users: [String] = [], tokenLifetime: Int? = nil, arguments: [String] = []) throws -> Fixture {
    let lifetime = tokenLifetime.map { ["--token-lifetime", String($0)] } ?? []
    servers.append(
      try TestBackend(arguments: lifetime + arguments + users.flatMap { ["--user", "\($0):\(Self.password(of: $0))"] }))
    return self
  }

  /// Adds backend NAME on every machine, as `Sandbox.addBackend(_:adapter:settings:secret:)`.
  @discardableResult
  func addingBackend(
    _ name: String, adapter: String = "plain", settings: [String]? = nil, secret: (name: String, value: String)? = nil
  ) throws -> Fixture {
    for machine in machines { try machine.addBackend(name, adapter: adapter, settings: settings, secret: secret) }
    return self
  }

  /// Adds backend NAME on every machine, on the plain adapter at the form login of the test
  /// backend (`server`: which one `serving` started), over plain http, with `settings` besides.
  @discardableResult
  func addingServedBackend(_ name: String, settings: [String] = [], server: Int = 0) throws -> Fixture {
    for machine in machines { try machine.addBackend(name, servedBy: servers[server], settings: settings) }
    return self
  }

  /// Saves USER on every machine, with `password` remembered when one is given, and `tags`.
  @discardableResult
  func saving(_ user: String, password: String? = nil, tags: [String] = []) throws -> Fixture {
    for machine in machines {
      if let password {
        try machine.ok(["add", user, "--remember", "--password-stdin"], stdin: password + "\n")
      } else {
        try machine.ok(["add", user])
      }
      if !tags.isEmpty { try machine.ok(["tag", user] + tags) }
    }
    return self
  }

  /// Saves each of `users` on every machine with its test backend password (`password(of:)`)
  /// remembered, and `tags`.
  @discardableResult
  func saving(_ users: [String], tags: [String] = []) throws -> Fixture {
    for user in users { try saving(user, password: Self.password(of: user), tags: tags) }
    return self
  }

  /// Starts a private redis-server in the first sandbox's directory, asking for `password`
  /// (requirepass) when one is given.
  @discardableResult
  func runningRedis(password: String? = nil) throws -> Fixture {
    redisServer = try RedisServer(directory: root, password: password)
    redisPassword = password
    return self
  }

  /// Makes the Redis every machine's lease store for `backend` (its lease_store), its password,
  /// if it has one, kept as the backend's secret setting lease_store_password.
  @discardableResult
  func leasingInRedis(_ backend: String = "corp") throws -> Fixture {
    for machine in machines {
      if let redisPassword {
        try machine.ok(
          ["backend", "set", backend, "lease_store=\(redis.tcpURL())", "--secret-stdin", "lease_store_password"],
          stdin: redisPassword + "\n")
      } else {
        try machine.ok(["backend", "set", backend, "lease_store=\(redis.tcpURL())"])
      }
    }
    return self
  }
}

// MARK: - Worlds several suites build

extension Fixture {
  /// The test backend's own users on backend corp (a session check and a logout path): alice
  /// (123456) and bob (hunter2) with their passwords remembered, carol saved without hers.
  static func aliceBobAndCarol(_ provider: SecretServiceProvider = .gnomeKeyring) throws -> Fixture {
    try Fixture(provider).serving()
      .addingServedBackend("corp", settings: ["check_path=check", "logout_path=logout"])
      .saving("alice", password: "123456").saving("bob", password: "hunter2").saving("carol")
  }

  /// `users` on backend corp (a session check), each with its password remembered and tagged
  /// qa, on a test backend whose tokens last `tokenLifetime` seconds.
  static func pool(_ users: [String], tokenLifetime: Int? = nil) throws -> Fixture {
    try Fixture().serving(users: users, tokenLifetime: tokenLifetime)
      .addingServedBackend("corp", settings: ["check_path=check"]).saving(users, tags: ["qa"])
  }
}

// MARK: - What a test asks of its world

extension Fixture {
  /// The paths the test backend saw since the last call, below /plain/plain/; then it forgets
  /// them.
  func seen() throws -> [String] {
    let paths = try backend.requests().compactMap { $0["path"] as? String }
      .map { $0.replacingOccurrences(of: "/plain/plain/", with: "") }
    try backend.control("log/clear")
    return paths
  }

  /// The index's object of the saved account of USER, or [:].
  func account(_ user: String) throws -> [String: Any] {
    let accounts = try sandbox.indexJSON()["accounts"] as? [[String: Any]] ?? []
    return accounts.first { $0["user"] as? String == user } ?? [:]
  }

  /// Whether `list --json` says ACCOUNT's password is remembered; nil when it lists no such
  /// account.
  func remembered(_ account: String) throws -> Bool? {
    let listed = try sandbox.json(["list", "--json"]) as? [[String: Any]] ?? []
    return listed.first { $0["account"] as? String == account }?["remembered"] as? Bool
  }

  /// The account in the auto-login slot, as the index says.
  var slot: String? { (try? sandbox.indexJSON())?["auto_login"] as? String }

  /// USER@corp's token in the keyring, read with secret-tool; nil when there is none.
  func keyringToken(_ user: String) throws -> String? {
    let result = try runProcess(
      "/usr/bin/secret-tool", ["lookup", "backend", "corp", "account", user, "kind", "token"],
      environment: sandbox.environment, timeout: 20)
    return result.status == 0 && !result.standardOutput.isEmpty ? result.standardOutput : nil
  }
}

extension TestBackend {
  /// How many logins (requests to a login path) the server has seen.
  func logins() throws -> Int {
    try requests().filter { ($0["path"] as? String)?.hasSuffix("/login") == true }.count
  }
}
