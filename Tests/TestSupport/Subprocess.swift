import Foundation

/// What a finished child process left behind.
public struct ProcessResult: Sendable, CustomStringConvertible {
  public var status: Int32
  public var standardOutput: String
  public var standardError: String
  /// Wall-clock seconds from spawn to exit.
  public var seconds: Double

  public init(status: Int32, standardOutput: String, standardError: String, seconds: Double) {
    self.status = status
    self.standardOutput = standardOutput
    self.standardError = standardError
    self.seconds = seconds
  }

  public var description: String {
    "exit \(status) after \(String(format: "%.2f", seconds)) s\n"
      + "--- stdout\n\(standardOutput)--- stderr\n\(standardError)---"
  }
}

public enum SubprocessError: Error, CustomStringConvertible {
  case timedOut(command: String, seconds: Double)

  public var description: String {
    switch self {
    case .timedOut(let command, let seconds): "\(command) did not finish within \(seconds) s"
    }
  }
}

/// Runs a program to completion with the given stdin bytes, killing it after `timeout` seconds.
/// Every test process is bounded in time: a hung child fails the test instead of stalling CI.
public func runProcess(
  _ executable: String,
  _ arguments: [String],
  environment: [String: String],
  standardInput: String? = nil,
  timeout: Double = 60,
  currentDirectory: String? = nil
) throws -> ProcessResult {
  _ = ignoreBrokenPipes
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
  process.arguments = arguments
  process.environment = environment
  let output = Pipe()
  let errors = Pipe()
  let input = Pipe()
  process.standardOutput = output
  process.standardError = errors
  process.standardInput = standardInput == nil ? FileHandle.nullDevice : input
  let started = Date()
  try process.runWithTerminationSignals()
  if let standardInput {
    try? input.fileHandleForWriting.write(contentsOf: Data(standardInput.utf8))
    try? input.fileHandleForWriting.close()
  }
  // Read both pipes concurrently so a chatty child cannot block on a full pipe.
  let collected = Collected()
  let group = DispatchGroup()
  for (pipe, isError) in [(output, false), (errors, true)] {
    group.enter()
    DispatchQueue.global().async {
      let data = pipe.fileHandleForReading.readDataToEndOfFile()
      collected.set(data, isError: isError)
      group.leave()
    }
  }
  let deadline = DispatchTime.now() + timeout
  if group.wait(timeout: deadline) == .timedOut {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    throw SubprocessError.timedOut(
      command: ([executable] + arguments).joined(separator: " "), seconds: timeout)
  }
  process.waitUntilExit()
  return ProcessResult(
    status: process.terminationStatus,
    standardOutput: collected.output,
    standardError: collected.errors,
    seconds: Date().timeIntervalSince(started))
}

private final class Collected: @unchecked Sendable {
  private let lock = NSLock()
  private var outputData = Data()
  private var errorData = Data()

  func set(_ data: Data, isError: Bool) {
    lock.withLock {
      if isError { errorData = data } else { outputData = data }
    }
  }

  var output: String { lock.withLock { String(decoding: outputData, as: UTF8.self) } }
  var errors: String { lock.withLock { String(decoding: errorData, as: UTF8.self) } }
}

extension Process {
  /// Starts the process with SIGTERM, SIGINT, SIGHUP and SIGQUIT unblocked.
  ///
  /// Foundation spawns children with the calling thread's signal mask, and the threads tests
  /// run on (Dispatch workers) block nearly every signal. A child that inherits that mask
  /// ignores SIGTERM for good: dbus-run-session's dbus-daemon then outlives every test
  /// session (hundreds were left behind), and gnome-keyring-daemon and the test backend
  /// need SIGKILL. SIGCHLD stays blocked: Foundation's own child reaping relies on it.
  public func runWithTerminationSignals() throws {
    var signals = sigset_t()
    sigemptyset(&signals)
    for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT] { sigaddset(&signals, signal) }
    var previous = sigset_t()
    pthread_sigmask(SIG_UNBLOCK, &signals, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    try run()
  }
}

/// A child that exits before reading its stdin (a command refused before it reads a password)
/// makes the write to its pipe fail: that must be an error the write ignores, not SIGPIPE
/// ending the whole test process.
private let ignoreBrokenPipes: Void = {
  signal(SIGPIPE, SIG_IGN)
}()
