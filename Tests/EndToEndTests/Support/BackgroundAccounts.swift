import Foundation
import TestSupport

/// The built binary running in the background, stoppable between its steps.
final class BackgroundAccounts {
  let process: SpawnedProcess

  init(
    _ sandbox: Sandbox, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]
  ) throws {
    process = try SpawnedProcess(
      PackagePaths.accounts, arguments, environment: sandbox.environment.merging(environment) { $1 },
      standardInput: stdin == nil ? .null : .pipe, standardOutput: .pipe, standardError: .pipe)
    if let stdin {
      process.write(Data(stdin.utf8))
      process.closeInput()
    }
  }

  var pid: pid_t { process.processIdentifier }

  /// Waits (at most 20 s) until the process has `lockPath` open: it is waiting for the lock.
  func waitUntilWaitingFor(lockPath: String) throws {
    let waiting = waitUntil(seconds: 20) {
      let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
      return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == lockPath }
    }
    guard waiting else { throw CocoaError(.fileLocking) }
    usleep(100_000)  // into its polling loop
  }

  /// Waits (at most 20 s) until the process stopped itself (the interposer's SIGSTOP).
  func waitUntilStopped() throws {
    guard waitUntil(seconds: 20, { processState(pid) == "T" }) else { throw CocoaError(.executableLoad) }
  }

  func stop() { process.signal(SIGSTOP) }
  func resume() { process.signal(SIGCONT) }

  func kill() {
    process.signal(SIGKILL)
    process.waitUntilExit()
  }

  /// Waits (at most 60 s) for the process to end.
  func finish() throws -> ProcessResult {
    let started = Date()
    guard waitUntil(seconds: 60, { !process.isRunning }) else {
      process.signal(SIGKILL)
      throw SubprocessError.timedOut(command: "accounts \(process.arguments)", seconds: 60)
    }
    process.waitUntilExit()
    return ProcessResult(
      status: process.terminationStatus,
      standardOutput: String(decoding: readAll(from: process.outputDescriptor), as: UTF8.self),
      standardError: String(decoding: readAll(from: process.errorDescriptor), as: UTF8.self),
      seconds: Date().timeIntervalSince(started))
  }
}

/// An `accounts` process in the background whose stderr goes to a file, so that what it (and
/// a lease keeper it started, which shares its stderr) says can be awaited while it runs.
final class Holder {
  let process: SpawnedProcess
  let errorPath: String

  init(_ sandbox: Sandbox, _ arguments: [String], environment: [String: String] = [:]) throws {
    errorPath = sandbox.keyring.root + "/holder-\(UUID().uuidString).err"
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    process = try SpawnedProcess(
      PackagePaths.accounts, arguments, environment: sandbox.environment.merging(environment) { $1 },
      standardError: .appending(errorPath))
  }

  var pid: pid_t { process.processIdentifier }

  var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

  func kill() {
    process.signal(SIGKILL)
    process.waitUntilExit()
  }

  /// Waits (at most 60 s) for the process to end; its status.
  func finish() throws -> Int32 {
    guard waitUntil(seconds: 60, { !process.isRunning }) else {
      process.signal(SIGKILL)
      throw SubprocessError.timedOut(command: "accounts \(process.arguments)", seconds: 60)
    }
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// The lease keeper of this holder's lease: the `accounts __lease-keeper` process whose
  /// standard input is a pipe this process has open.
  func keeper() -> pid_t? {
    let files = FileManager.default
    let fds = (try? files.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    let pipes = Set(
      fds.compactMap { try? files.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)") }
        .filter { $0.hasPrefix("pipe:") })
    for entry in (try? files.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let candidate = pid_t(entry),
        procFile("/proc/\(entry)/cmdline") == "accounts\0__lease-keeper\0",
        let input = try? files.destinationOfSymbolicLink(atPath: "/proc/\(entry)/fd/0"), pipes.contains(input)
      else { continue }
      return candidate
    }
    return nil
  }
}

extension Holder {
  /// The first process of this holder's lease keeper while it is stopped (by the keeper-stop
  /// interposer): a child of this process, `accounts __lease-keeper`, in state T.
  func stoppedKeeper() -> pid_t? {
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let candidate = pid_t(entry), procFile("/proc/\(entry)/cmdline") == "accounts\0__lease-keeper\0",
        let stat = procFile("/proc/\(entry)/stat").split(separator: ")").last?.split(separator: " "),
        stat.count > 1, stat[0] == "T", stat[1] == "\(pid)"
      else { continue }
      return candidate
    }
    return nil
  }
}
