import Foundation
import TestSupport
import Testing

/// A private world for one test: its own headless gnome-keyring and D-Bus session (started by
/// scripts/with-keyring), its own XDG directories and HOME, and the built `accounts` binary.
final class Sandbox: @unchecked Sendable {
  let keyring: KeyringSession
  let environment: [String: String]

  init() throws {
    keyring = try KeyringSession()
    var environment = keyring.environment
    let home = keyring.root + "/home"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    environment["HOME"] = home
    environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    environment["TZ"] = "UTC"
    environment["LANG"] = "C.UTF-8"
    self.environment = environment
  }

  /// Runs `accounts ARGUMENTS` to completion (bounded: 60 s).
  @discardableResult
  func run(
    _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:],
    timeout: Double = 60
  ) throws -> ProcessResult {
    try runProcess(
      PackagePaths.accounts, arguments, environment: environment.merging(extra) { $1 },
      standardInput: stdin, timeout: timeout)
  }

  /// Runs `accounts ARGUMENTS` and fails the test unless it exits 0.
  @discardableResult
  func ok(
    _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> ProcessResult {
    let result = try run(arguments, stdin: stdin, environment: extra)
    #expect(result.status == 0, "accounts \(arguments.joined(separator: " ")): \(result)", sourceLocation: sourceLocation)
    return result
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
