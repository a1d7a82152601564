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

  /// Runs `accounts ARGUMENTS`, and tells whether it loaded libAccountsPrivate.so (libsecret
  /// and GLib): the dynamic loader's own log, kept out of stderr.
  func runNotingPrivateLibrary(_ arguments: [String], environment extra: [String: String] = [:]) throws
    -> (ProcessResult, loadedPrivateLibrary: Bool)
  {
    let (result, loaded) = try runNotingLibraries(arguments, environment: extra)
    return (result, loaded.contains("libAccountsPrivate.so"))
  }

  /// Runs `accounts ARGUMENTS` and names every library the process loaded (its own and those
  /// they need, e.g. "libgcrypt.so.20"), as the dynamic loader's log says (LD_DEBUG=files).
  func runNotingLibraries(_ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:])
    throws -> (ProcessResult, loaded: Set<String>)
  {
    let log = keyring.root + "/ld-\(UUID().uuidString)"
    let result = try run(
      arguments, stdin: stdin, environment: extra.merging(["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": log]) { $1 })
    let directory = (log as NSString).deletingLastPathComponent
    let prefix = (log as NSString).lastPathComponent
    var loaded: Set<String> = []
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix(prefix) {
      let text = (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
      for line in text.split(separator: "\n") {
        guard let start = line.range(of: "file=") else { continue }
        let file = line[start.upperBound...].prefix { $0 != " " && $0 != "[" && $0 != ";" }
        loaded.insert(String((file as Substring).split(separator: "/").last ?? file))
      }
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

  /// `accounts backend add NAME --adapter ADAPTER --set SETTING...`, a secret setting's value
  /// on stdin (--secret-stdin): a backend for a test to use, not the command under test.
  /// Without `settings`, plain's base_url at NAME.example: it needs no secret and no network.
  func addBackend(
    _ name: String, adapter: String = "plain", settings: [String]? = nil, secret: (name: String, value: String)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let settings = settings ?? ["base_url=https://\(name).example/api"]
    try ok(
      ["backend", "add", name, "--adapter", adapter] + settings.flatMap { ["--set", $0] }
        + (secret.map { ["--secret-stdin", $0.name] } ?? []),
      stdin: secret.map { $0.value + "\n" }, sourceLocation: sourceLocation)
  }

  /// Backend NAME on the built-in plain adapter at `server`'s form login (/plain/plain), over
  /// plain http (allow_insecure_transport=true), with `settings` besides.
  func addBackend(
    _ name: String, servedBy server: TestBackend, settings: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    try addBackend(
      name, settings: ["base_url=\(server.url)/plain/plain", "allow_insecure_transport=true"] + settings,
      sourceLocation: sourceLocation)
  }

  /// Runs `accounts ARGUMENTS` on a pseudo-terminal of its own, typing each step's text once
  /// its prompt shows (bounded: 30 s unless told). TERM is xterm-256color, as a terminal
  /// emulator sets it, unless `environment` says otherwise.
  func terminal(
    _ arguments: [String], _ steps: [(expect: String, type: String)] = [], timeout: Double = 30,
    environment extra: [String: String] = [:], transcript: String? = nil
  ) throws -> ProcessResult {
    try runInTerminal(
      PackagePaths.accounts, arguments,
      environment: environment.merging(["TERM": "xterm-256color"]) { $1 }.merging(extra) { $1 }, steps: steps,
      timeout: timeout, transcript: transcript)
  }

  /// Runs a bash script with the sandbox's environment and $ACCOUNTS the built binary (bounded:
  /// 30 s).
  func shell(_ script: String, stdin: String? = nil) throws -> ProcessResult {
    try runProcess(
      "/bin/bash", ["-c", script], environment: environment.merging(["ACCOUNTS": PackagePaths.accounts]) { $1 },
      standardInput: stdin, timeout: 30)
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

/// Runs of spaces as one, for matching table rows whatever the column widths.
func squeezed(_ text: String) -> String {
  text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
}
