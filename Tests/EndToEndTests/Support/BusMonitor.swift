import Foundation
import TestSupport

/// dbus-monitor on a sandbox's bus, its method calls in a file, to await what a command does on
/// the bus (a condition, not a delay).
final class BusMonitor: @unchecked Sendable {
  private let process: SpawnedProcess
  private let log: String

  init(_ sandbox: Sandbox) throws {
    log = sandbox.keyring.root + "/monitor-\(UUID().uuidString.prefix(8)).txt"
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    process = try SpawnedProcess(
      "/usr/bin/dbus-monitor", ["--session", "--profile"], environment: sandbox.environment,
      standardOutput: .appending(log), standardError: .null)
    // A monitor first sees its own name handed out: from then on it sees every message.
    guard waitUntil(seconds: 20, { self.text().contains("NameAcquired") }) else {
      throw CocoaError(.executableLoad)
    }
  }

  private func text() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

  /// The members of the method calls seen so far, in order.
  func members() -> [String] {
    text().split(separator: "\n").compactMap { line in
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
      return fields.first == "mc" && fields.count >= 8 ? String(fields[7]) : nil
    }
  }

  /// Waits (at most 20 s) for a call of `member` after the first call of `earlier`.
  func waitForCall(_ member: String, after earlier: String) throws {
    let seen = waitUntil(seconds: 20) {
      let members = self.members()
      guard let first = members.firstIndex(of: earlier) else { return false }
      return members[(first + 1)...].contains(member)
    }
    guard seen else { throw CocoaError(.executableLoad) }
  }

  /// Ends the monitor this test started, by its pid.
  func stop() {
    process.signal(SIGKILL)
    process.waitUntilExit()
  }
}
