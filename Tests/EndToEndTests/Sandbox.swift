import Foundation
import TestSupport
import Testing

/// A private world for one test: its own headless gnome-keyring and D-Bus session (started by
/// scripts/with-keyring), its own XDG directories and HOME, and the built `accounts` binary.
final class Sandbox: @unchecked Sendable {
  let keyring: KeyringSession
  let environment: [String: String]

  init(provider: SecretServiceProvider = .gnomeKeyring, settings: [String: String] = [:]) throws {
    keyring = try KeyringSession(provider: provider, settings: settings)
    var environment = keyring.environment
    let home = keyring.root + "/home"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    environment["HOME"] = home
    environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    environment["TZ"] = "UTC"
    // KeePassXC is a desktop program: on a machine busy with the whole test run it can take
    // longer than the 5 s default to answer. Tests that measure a deadline set their own.
    if provider == .keepassxc { environment["ACCOUNTS_SECRET_TIMEOUT"] = "20" }
    environment["LANG"] = "C.UTF-8"
    self.environment = environment
  }

  /// Runs `accounts ARGUMENTS` to completion (bounded: 60 s).
  @discardableResult
  func run(
    _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:],
    timeout: Double = 60, in directory: String? = nil
  ) throws -> ProcessResult {
    try runProcess(
      PackagePaths.accounts, arguments, environment: environment.merging(extra) { $1 },
      standardInput: stdin, timeout: timeout, currentDirectory: directory)
  }

  /// Runs `accounts ARGUMENTS`, and tells whether it loaded libAccountsPrivate.so (libsecret,
  /// GLib, the adapter host): the dynamic loader's own log, kept out of stderr.
  func runNotingPrivateLibrary(_ arguments: [String], environment extra: [String: String] = [:]) throws
    -> (ProcessResult, loadedPrivateLibrary: Bool)
  {
    let log = keyring.root + "/ld-\(UUID().uuidString)"
    let result = try run(arguments, environment: extra.merging(["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": log]) { $1 })
    let directory = (log as NSString).deletingLastPathComponent
    let prefix = (log as NSString).lastPathComponent
    var loaded = false
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix(prefix) {
      let text = (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
      loaded = loaded || text.contains("libAccountsPrivate.so")
      try? FileManager.default.removeItem(atPath: directory + "/" + name)
    }
    return (result, loaded)
  }

  /// Runs `accounts ARGUMENTS` and fails the test unless it exits 0: the failure is recorded,
  /// then `CheckFailed` thrown, so the test stops there (its next lines would read output that
  /// is not there).
  @discardableResult
  func ok(
    _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:],
    in directory: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> ProcessResult {
    let result = try run(arguments, stdin: stdin, environment: extra, in: directory)
    guard result.status == 0 else {
      let command = "accounts \(arguments.joined(separator: " "))"
      Issue.record("\(command): \(result)", sourceLocation: sourceLocation)
      throw CheckFailed(command: command, status: result.status)
    }
    return result
  }

  /// A command `ok` ran did not exit 0 (the failure is recorded already).
  struct CheckFailed: Error, CustomStringConvertible {
    let command: String
    let status: Int32
    var description: String { "\(command) exited \(status)" }
  }

  /// Parses stdout as JSON.
  func json(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
    let result = try ok(arguments, sourceLocation: sourceLocation)
    return try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8), options: [.fragmentsAllowed])
  }

  /// A backend on the built-in plain adapter that needs no secret and no network to add.
  func addBackend(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try ok(["backend", "add", name, "--adapter", "plain", "--set", "base_url=https://\(name).example/api"], sourceLocation: sourceLocation)
  }

  var indexPath: String { environment["XDG_STATE_HOME"]! + "/accounts/accounts.json" }

  var configPath: String { environment["XDG_CONFIG_HOME"]! + "/accounts/config.json" }

  /// $XDG_DATA_HOME/accounts/adapters of the sandbox, created 0755.
  func userAdapterDirectory() throws -> String {
    let directory = environment["XDG_DATA_HOME"]! + "/accounts/adapters"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    chmod(directory, 0o755)
    return directory
  }

  /// `secret-tool search --all` output for our items of a backend (labels and attributes).
  func keyringItems(backend: String) throws -> String {
    let result = try runProcess(
      "/usr/bin/secret-tool", ["search", "--all", "backend", backend], environment: environment, timeout: 20)
    return result.standardOutput + result.standardError
  }

  func close() { keyring.close() }
}

/// Every file under `root` (keyring files included) that contains `needle`.
func filesContaining(_ needle: String, under root: String) -> [String] {
  var found: [String] = []
  guard let walker = FileManager.default.enumerator(atPath: root) else { return found }
  for case let relative as String in walker {
    let path = root + "/" + relative
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
      let data = FileManager.default.contents(atPath: path)
    else { continue }
    if data.range(of: Data(needle.utf8)) != nil { found.append(path) }
  }
  return found
}

/// One item of ours in a sandbox's keyring, as `secret-tool` shows it.
struct KeyringItem: Hashable {
  var backend: String
  var account: String
  var kind: String
  var secret: String
}

extension Sandbox {
  /// Every item of the accounts schema in the keyring, read with `secret-tool`.
  func allKeyringItems() throws -> [KeyringItem] {
    // secret-tool prints the attributes on stderr and the rest on stdout: one stream, line
    // buffered, keeps each item's lines together.
    let result = try runProcess(
      "/bin/sh", ["-c", "exec stdbuf -oL /usr/bin/secret-tool search --all xdg:schema io.accounts.Secret 2>&1"],
      environment: environment, timeout: 20)
    var items: [KeyringItem] = []
    var current: [String: String] = [:]
    func finish() {
      if let backend = current["attribute.backend"], let account = current["attribute.account"],
        let kind = current["attribute.kind"]
      {
        items.append(KeyringItem(backend: backend, account: account, kind: kind, secret: current["secret"] ?? ""))
      }
      current = [:]
    }
    for line in result.standardOutput.split(separator: "\n") {
      if line.hasPrefix("[") {
        finish()
      } else if let range = line.range(of: " = ") {
        current[String(line[..<range.lowerBound])] = String(line[range.upperBound...])
      }
    }
    finish()
    return items
  }

  /// The index as JSON.
  func indexJSON() throws -> [String: Any] {
    guard let data = FileManager.default.contents(atPath: indexPath) else { return [:] }
    return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  }

  /// config.json as JSON.
  func configJSON() throws -> [String: Any] {
    guard let data = FileManager.default.contents(atPath: environment["XDG_CONFIG_HOME"]! + "/accounts/config.json") else { return [:] }
    return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  }

  /// What breaks SPEC §2's integrity invariant between the files and the real keyring: an item
  /// of an account the index does not name or does not say holds it, a password or token the
  /// index claims that the keyring lacks, an account whose backend config.json does not have,
  /// and a backend's secret setting the config does not list (or lists and the keyring lacks).
  /// Empty when they agree.
  func invariantViolations() throws -> [String] {
    var violations = try accountViolations()
    let backends = try configJSON()["backends"] as? [String: [String: Any]] ?? [:]
    for case let account as [String: Any] in try indexJSON()["accounts"] as? [Any] ?? [] {
      if let backend = account["backend"] as? String, backends[backend] == nil {
        violations.append("\(account["user"] ?? "?")@\(backend) is saved for a backend config.json does not have")
      }
    }
    let settings = try allKeyringItems().filter { $0.account.isEmpty }
    for item in settings {
      let listed = backends[item.backend]?["secret_settings"] as? [String] ?? []
      if !item.kind.hasPrefix("setting:") || !listed.contains(String(item.kind.dropFirst(8))) {
        violations.append("the keyring holds \(item.kind) of backend \(item.backend), which config.json does not list")
      }
    }
    for (name, backend) in backends {
      for setting in backend["secret_settings"] as? [String] ?? []
      where !settings.contains(where: { $0.backend == name && $0.kind == "setting:\(setting)" }) {
        violations.append("config.json lists \(setting) of backend \(name), which the keyring lacks")
      }
    }
    return violations.sorted()
  }

  private func accountViolations() throws -> [String] {
    let index = try indexJSON()
    var claims: [String: (remembered: Bool, token: Bool, otp: Bool)] = [:]
    for case let account as [String: Any] in index["accounts"] as? [Any] ?? [] {
      let id = "\(account["user"] as? String ?? "?")@\(account["backend"] as? String ?? "?")"
      claims[id] = (account["remembered"] as? Bool == true, account["token"] is [String: Any], account["otp"] as? Bool == true)
    }
    var violations: [String] = []
    let items = try allKeyringItems().filter { !$0.account.isEmpty }  // backend settings aside
    for item in items {
      let id = "\(item.account)@\(item.backend)"
      switch (claims[id], item.kind) {
      case (nil, _): violations.append("the keyring holds a \(item.kind) of \(id), which the index does not name")
      case (let claim?, "password") where !claim.remembered:
        violations.append("the keyring holds a password of \(id), which the index says is not remembered")
      case (let claim?, "token") where !claim.token:
        violations.append("the keyring holds a token of \(id), which the index does not record")
      case (let claim?, "otp") where !claim.otp:
        violations.append("the keyring holds an otp seed of \(id), which the index does not claim")
      default: break
      }
    }
    for (id, claim) in claims {
      if claim.remembered, !items.contains(where: { "\($0.account)@\($0.backend)" == id && $0.kind == "password" }) {
        violations.append("the index says \(id) is remembered, but the keyring has no password for it")
      }
      if claim.token, !items.contains(where: { "\($0.account)@\($0.backend)" == id && $0.kind == "token" }) {
        violations.append("the index records a token of \(id), but the keyring has none")
      }
      if claim.otp, !items.contains(where: { "\($0.account)@\($0.backend)" == id && $0.kind == "otp" }) {
        violations.append("the index claims an otp seed of \(id), but the keyring has none")
      }
    }
    return violations.sorted()
  }
}
