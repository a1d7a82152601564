import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Foundation
import SecretMemory
import Synchronization
import TestDoubles
import Testing

@testable import AccountsCLI

/// A command run in this process, as `accounts` runs it (the parser, the values' checks, the
/// command's handler), against an `Environment` over a temporary XDG tree and the test doubles:
/// a fake keyring, a fake adapter host, a token cache in memory, a fixed clock, no terminal.
/// What the command writes for stdout and stderr is kept for the test to read, and an error it
/// throws is its exit status, as `AccountsCommandLine` reports it.
///
/// The end-to-end tests run the built binary against the real keyring and the test backend;
/// these pin a command's own rules, each in a few milliseconds.
final class TestEnvironment {
  let tree: TemporaryTree
  let store = FakeSecretStore()
  let host = FakeAdapterHost()
  let tokenCache = InMemoryTokenCache()
  /// The process environment the command sees: leases in the tree's runtime directory.
  var variables: [String: String]
  let now = Timestamp(secondsSince1970: 1_800_000_000)

  init() throws {
    tree = try TemporaryTree()
    let runtime = tree.root + "/run"
    try FileManager.default.createDirectory(
      atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    variables = ["XDG_RUNTIME_DIR": runtime, "PWD": "/"]
  }

  /// An environment over this tree and these doubles, writing to `output`.
  func environment(output: Output = Output()) -> Environment {
    let store = store
    let host = host
    let now = now
    return Environment(
      variables: variables, paths: tree.paths, terminal: Terminal(canPrompt: false, errorIsTerminal: false),
      output: output, now: { now }, makeSecretStore: { store }, makeAdapterHost: { host }, tokenCache: tokenCache,
      currentDirectory: { .present("/") })
  }

  /// Runs `accounts WORDS...` and returns what it wrote and its exit status.
  func run(_ words: String...) -> CommandResult { run(words) }

  /// Runs `accounts WORDS...` and returns what it wrote and its exit status.
  func run(_ words: [String]) -> CommandResult {
    let messages = Mutex<[UInt8]>([])
    let output = Output(writeMessage: { bytes in messages.withLock { $0 += bytes } })
    let environment = environment(output: output)
    var thrown: (any Error)?
    do {
      let parser = Parser(commands: CommandTable.all, defaultCommand: "list")
      guard case .run(let invocation) = try parser.parse(words) else {
        throw CommandError.usage("\(words) asks for help or the version, not a command")
      }
      try invocation.checkValues()
      try AccountsCommandLine.perform(invocation, environment)
    } catch {
      thrown = error
    }
    let status: AccountsSystem.ExitStatus =
      switch thrown {
      case nil: .success
      case let quiet as QuietFailure: quiet.status
      case let reported as any UserFacingError: reported.status
      default: .failure
      }
    return CommandResult(
      status: status, output: String(decoding: output.buffer, as: UTF8.self),
      messages: String(decoding: messages.withLock { $0 }, as: UTF8.self).split(separator: "\n").map(String.init),
      error: thrown as? any UserFacingError)
  }

  // MARK: What a test sets up, through the same ledger the commands use

  /// A backend `name` of `adapter`, with `settings`.
  func addBackend(_ name: String = "corp", adapter: String = "plain", settings: [String: String] = [:]) throws {
    try environment().ledger.addBackend(
      BackendConfig(name: name, adapter: adapter, settings: settings), secretSettings: [:])
  }

  /// `user@backend` saved, its password remembered when given, with `tags`.
  @discardableResult
  func addAccount(_ user: String, backend: String = "corp", password: String? = nil, tags: [String] = [])
    throws -> AccountID
  {
    let id = AccountID(user: user, backend: backend)
    let environment = environment()
    try environment.ledger.add(Account(id: id, addedAt: now), password: password.map(secret))
    if !tags.isEmpty {
      try environment.index.update { book in _ = book.update(id) { _ = $0.tag(tags) } }
    }
    return id
  }

  /// The index as the last command left it.
  var book: AccountBook { get throws { try environment().index.load() } }

  /// The configuration as the last command left it.
  var configuration: Configuration { get throws { try environment().config.load() } }
}

/// What a command run in process did.
struct CommandResult {
  /// The exit status `accounts` would end with.
  let status: AccountsSystem.ExitStatus
  /// What it wrote for stdout.
  let output: String
  /// Its lines for stderr (the final error's line excepted: `error` is that).
  let messages: [String]
  /// The error it ended with, if any.
  let error: (any UserFacingError)?
}

extension TestEnvironment {
  /// A held lease of `id` by another holder (a worker on ci-7), kept while `body` runs.
  func leasedElsewhere<Result>(_ id: AccountID, _ body: () throws -> Result) throws -> Result {
    let store = try environment().leaseStores().store(for: [id])
    let attempt = try store.tryAcquire([id], count: 1, holder: LeaseHolder(host: "ci-7", pid: 4242), ttl: nil, now: now)
    guard case .granted(let grant) = attempt else {
      Issue.record("not leased: \(attempt)")
      return try body()
    }
    defer { grant.end() }
    return try body()
  }

  /// The live lease of `id` in the store the commands use.
  func lease(of id: AccountID) throws -> LeaseRecord? {
    try environment().leaseStores().store(for: [id]).leases(of: [id], now: now).first
  }
}
