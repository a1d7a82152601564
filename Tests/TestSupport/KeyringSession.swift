import Foundation
import Synchronization

/// The Secret Service providers accounts supports, each started headless by a script of the
/// project: `scripts/with-keyring` (gnome-keyring) and `scripts/with-keepassxc` (KeePassXC).
public enum SecretServiceProvider: String, CaseIterable, Sendable, CustomStringConvertible {
  case gnomeKeyring = "gnome-keyring"
  case keepassxc = "keepassxc"

  public var description: String { rawValue }

  var script: String {
    switch self {
    case .gnomeKeyring: "with-keyring"
    case .keepassxc: "with-keepassxc"
    }
  }

  /// For behaviour the provider cannot change, decided by the index and its lock (races
  /// between commands, kills half-way through an import, what a seed's removal takes along):
  /// gnome-keyring only. KeePassXC runs where the provider matters (storing, replacing and
  /// deleting items, locking, prompts, access confirmation, concurrent clients: KeePassXCTests
  /// and the tests over `allCases`): a desktop program, it costs seconds a test.
  public static let providerBlind: [Self] = [.gnomeKeyring]

  /// The name of the process that owns org.freedesktop.secrets, as `doctor` shows it.
  public var processName: String {
    switch self {
    case .gnomeKeyring: "gnome-keyring-daemon"
    case .keepassxc: "keepassxc"
    }
  }
}

/// A private D-Bus session bus with an unlocked Secret Service (gnome-keyring unless told
/// otherwise), started through `scripts/with-keyring` or `scripts/with-keepassxc` (the scripts
/// the README's demo and a user's own trials use), alive until `close()`.
///
/// The script runs a child that prints its environment and then waits for its stdin to close,
/// so the keyring goes away when the test closes the session or the test process dies.
public final class KeyringSession: @unchecked Sendable {
  /// Variables a client needs: `DBUS_SESSION_BUS_ADDRESS`, the `XDG_*` directories,
  /// `WITH_KEYRING_ROOT` and `WITH_KEYRING_DAEMON_PID`.
  public let environment: [String: String]
  private let process: SpawnedProcess

  /// One session per test process for in-process libsecret tests: libsecret and GDBus cache the
  /// session bus, so a process can only ever talk to one. It is exported into this process's
  /// environment before any test touches libsecret.
  public static let shared: KeyringSession = {
    do {
      let session = try KeyringSession()
      for (name, value) in session.environment where name == "DBUS_SESSION_BUS_ADDRESS" {
        setenv(name, value, 1)
      }
      return session
    } catch {
      fatalError("cannot start a headless keyring for the tests: \(error)")
    }
  }()

  public let provider: SecretServiceProvider

  /// KeePassXC is a desktop program (Qt on a private Xvfb): more than two of them starting and
  /// serving at once on the 2-core machine, beside the rest of the run, made one crash or miss
  /// its deadlines. A session waits its turn; gnome-keyring sessions do not.
  private static let keepassxcTurns = DispatchSemaphore(value: 2)

  private static let startingEnvironment = ProcessInfo.processInfo.environment

  /// Whether this session gave its KeePassXC turn back (close() runs more than once).
  private let turnGivenBack = Mutex(false)

  /// `settings`: extra environment for the script, e.g. WITH_KEEPASSXC_CONFIRM_ACCESS=true.
  public init(provider: SecretServiceProvider = .gnomeKeyring, settings: [String: String] = [:]) throws {
    self.provider = provider
    if provider == .keepassxc { Self.keepassxcTurns.wait() }
    var started = false
    defer { if !started, provider == .keepassxc { Self.keepassxcTurns.signal() } }
    let names = [
      "DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME",
      "WITH_KEYRING_ROOT", "WITH_KEYRING_DAEMON_PID", "XDG_RUNTIME_DIR",
    ]
    let printer = names.map { "printf '%s=%s\\n' \($0) \"$\($0)\"" }.joined(separator: "; ")
    process = try SpawnedProcess(
      PackagePaths.script(provider.script), ["/bin/sh", "-c", "\(printer); echo READY; cat >/dev/null"],
      // A copy of the environment taken once: the process's own may be changing under
      // another thread (`shared` exports its bus).
      environment: Self.startingEnvironment.merging(settings) { $1 }, standardInput: .pipe, standardOutput: .pipe)

    var lines: [String] = []
    var buffer = Data()
    let deadline = Date().addingTimeInterval(20)
    while !lines.contains("READY") {
      var entry = pollfd(fd: process.outputDescriptor, events: Int16(POLLIN), revents: 0)
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { throw KeyringSessionError.notReady(lines) }
      if poll(&entry, 1, Int32(left * 1000) + 1) <= 0 { continue }  // the deadline, or EINTR
      let chunk = readSome(from: process.outputDescriptor)
      if chunk.isEmpty { throw KeyringSessionError.notReady(lines) }  // the script exited
      buffer.append(chunk)
      lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }
    var environment: [String: String] = [:]
    for line in lines {
      guard let equals = line.firstIndex(of: "=") else { continue }
      environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
    }
    // A session missing one of these would send its clients to another bus, or its signals
    // to pid 0: this process's whole group.
    for name in names where environment[name, default: ""].isEmpty { throw KeyringSessionError.notReady(lines) }
    guard pid_t(environment["WITH_KEYRING_DAEMON_PID"]!) ?? 0 > 0 else { throw KeyringSessionError.notReady(lines) }
    self.environment = environment
    started = true
  }

  private func giveTurnBack() {
    guard provider == .keepassxc else { return }
    let first = turnGivenBack.withLock { given in
      defer { given = true }
      return !given
    }
    if first { Self.keepassxcTurns.signal() }
  }

  /// The directory holding this keyring and the client's XDG directories.
  public var root: String { environment["WITH_KEYRING_ROOT"] ?? "" }

  /// The gnome-keyring-daemon's process id, e.g. to stop it with SIGSTOP.
  public var daemonProcessID: pid_t { pid_t(environment["WITH_KEYRING_DAEMON_PID"] ?? "") ?? 0 }

  /// Stops the keyring and removes its directory; waits (at most 30 s) for the script to finish.
  public func close() {
    defer { giveTurnBack() }
    guard process.isRunning else { return }
    process.closeInput()
    let deadline = Date().addingTimeInterval(30)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning {
      // A stuck cleanup must not hang the whole test run; the daemon dies with its bus.
      process.signal(SIGKILL)
      process.waitUntilExit()
    }
  }

  deinit { close() }
}

public enum KeyringSessionError: Error, CustomStringConvertible {
  case notReady([String])

  public var description: String {
    "scripts/with-keyring did not become ready; it printed: \(lines)"
  }

  private var lines: [String] {
    switch self { case .notReady(let lines): lines }
  }
}
