import Foundation
import Testing

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
///
/// Spawned here with posix_spawn, not Foundation's Process: a dozen tests spawning at once
/// through Process and Pipe lost pipe data to one another and crashed the whole run on a
/// descriptor closed under a reader ("Bad file descriptor", swiftlang/swift#57827). Every
/// descriptor here is created close-on-exec and closed once, by its one owner.
public func runProcess(
  _ executable: String,
  _ arguments: [String],
  environment: [String: String],
  standardInput: String? = nil,
  timeout: Double = 60,
  currentDirectory: String? = nil
) throws -> ProcessResult {
  let started = Date()
  let output = try PipeEnds()
  let errors = try PipeEnds()
  let input = try standardInput.map { _ in try PipeEnds() }
  let pid = try spawn(
    executable, arguments, environment: environment, currentDirectory: currentDirectory,
    standardInput: input.map { .descriptor($0.read) } ?? .null, standardOutput: .descriptor(output.write),
    standardError: .descriptor(errors.write))
  output.closeWrite()
  errors.closeWrite()
  input?.closeRead()
  func timedOut() -> SubprocessError {
    // The child leads a process group of its own: what it started goes with it. Its zombie
    // keeps the group's id from being reused until it is reaped, after the kill.
    kill(-pid, SIGKILL)
    _ = waitForExit(pid)
    return SubprocessError.timedOut(command: ([executable] + arguments).joined(separator: " "), seconds: timeout)
  }

  // One thread does it all: stdin is written (non-blocking) as the child reads it, beside the
  // reads of stdout and stderr, so a child that writes before it reads cannot block either side.
  let bytes = Array((standardInput ?? "").utf8)
  var written = 0
  if let input {
    if bytes.isEmpty { input.closeWrite() } else { _ = fcntl(input.write, F_SETFL, fcntl(input.write, F_GETFL) | O_NONBLOCK) }
  }
  var collected = (output: Data(), errors: Data())
  let deadline = Date().addingTimeInterval(timeout)
  var open = [output.read, errors.read]
  while !open.isEmpty {
    let left = deadline.timeIntervalSinceNow
    guard left > 0 else { throw timedOut() }
    var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let writing = input.map { $0.write } ?? -1
    if writing >= 0 { polled.append(pollfd(fd: writing, events: Int16(POLLOUT), revents: 0)) }
    let ready = poll(&polled, nfds_t(polled.count), Int32(min(left, 1) * 1000) + 1)
    if ready < 0, errno != EINTR { throw timedOut() }
    for entry in polled where entry.revents != 0 {
      if entry.fd == writing {
        let count = bytes[written...].withUnsafeBytes { write(writing, $0.baseAddress, $0.count) }
        if count > 0 { written += count }
        if written == bytes.count || (count < 0 && errno != EAGAIN && errno != EINTR) || entry.revents & Int16(POLLERR) != 0 {
          input?.closeWrite()  // all of it, or the child closed its end (EPIPE)
        }
        continue
      }
      let chunk = readSome(from: entry.fd)
      if chunk.isEmpty {
        open.removeAll { $0 == entry.fd }
      } else if entry.fd == output.read {
        collected.output.append(chunk)
      } else {
        collected.errors.append(chunk)
      }
    }
  }
  input?.closeWrite()
  // Its output has ended; it may still run (it closed both streams): bounded as well.
  var status: Int32?
  while status == nil {
    status = waitForExit(pid, blocking: false)
    if status == nil {
      guard deadline.timeIntervalSinceNow > 0 else { throw timedOut() }
      usleep(2_000)
    }
  }
  return ProcessResult(
    status: status!,
    standardOutput: String(decoding: collected.output, as: UTF8.self),
    standardError: String(decoding: collected.errors, as: UTF8.self),
    seconds: Date().timeIntervalSince(started))
}

/// The two ends of a pipe, close-on-exec, each closed once.
final class PipeEnds: @unchecked Sendable {
  private(set) var read: Int32
  private(set) var write: Int32
  private let lock = NSLock()

  init() throws {
    var ends: [Int32] = [-1, -1]
    guard let createPipe, createPipe(&ends, O_CLOEXEC) == 0 else { throw CocoaError(.fileWriteUnknown) }
    (read, write) = (ends[0], ends[1])
  }

  func closeRead() { lock.withLock { if read >= 0 { close(read); read = -1 } } }
  func closeWrite() { lock.withLock { if write >= 0 { close(write); write = -1 } } }

  func closeBoth() {
    closeRead()
    closeWrite()
  }

  deinit { closeBoth() }
}

/// Where a child's stdin, stdout or stderr goes.
enum Redirection {
  case descriptor(Int32)
  case null
  case inherited
  /// A file, appended to (stdout and stderr only).
  case appending(String)
}

/// Starts `executable` with stdin, stdout and stderr as given, its signal mask empty and
/// SIGPIPE, SIGTERM, SIGINT, SIGHUP and SIGQUIT at their defaults (the threads tests run on
/// block or ignore them; a child must not inherit that: a dbus-daemon that ignores SIGTERM
/// outlives every test).
func spawn(
  _ executable: String, _ arguments: [String], environment: [String: String], currentDirectory: String? = nil,
  standardInput: Redirection, standardOutput: Redirection, standardError: Redirection
) throws -> pid_t {
  _ = ignoreBrokenPipes
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  for (target, redirection) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
    switch redirection {
    case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
    case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
    case .inherited: break
    case .appending(let path): posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
    }
  }
  if let currentDirectory {
    guard let addChangeDirectory else { throw CocoaError(.featureUnsupported) }
    _ = currentDirectory.withCString { addChangeDirectory(&actions, $0) }
  }
  var attributes = posix_spawnattr_t()
  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var empty = sigset_t()
  sigemptyset(&empty)
  posix_spawnattr_setsigmask(&attributes, &empty)
  var defaults = sigset_t()
  sigemptyset(&defaults)
  for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
  posix_spawnattr_setsigdefault(&attributes, &defaults)
  // A process group of its own, as Foundation gave: a timeout kills what it started too.
  posix_spawnattr_setpgroup(&attributes, 0)
  posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

  let argv = ([executable] + arguments).map { strdup($0) } + [nil]
  let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
  defer {
    argv.forEach { free($0) }
    envp.forEach { free($0) }
  }
  var pid: pid_t = 0
  var result = SpawnGate.whileSpawning { posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
  // A program a test has just copied is "busy" while a child another thread is spawning
  // still holds the copy's descriptor, until that child's exec closes it: a moment.
  for _ in 0..<100 where result == ETXTBSY {
    usleep(10_000)
    result = SpawnGate.whileSpawning { posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
  }
  guard result == 0 else {
    throw CocoaError(
      .executableLoad,
      userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(result)))"])
  }
  return pid
}

/// A child a test keeps running beside it (a keyring, a server, a command it stops half-way),
/// with pipes to its stdin and from its stdout and stderr where asked: Foundation's Process
/// without its descriptor bugs (see `runProcess`). The pipes close with it.
public final class SpawnedProcess: @unchecked Sendable {
  public enum Stream: Equatable {
    /// /dev/null
    case null
    /// A pipe to or from this process.
    case pipe
    /// This process's own (stderr only).
    case inherited
    /// A file, appended to (stdout and stderr only).
    case appending(String)
  }

  public let processIdentifier: pid_t
  public let arguments: [String]
  private let input: PipeEnds?
  private let output: PipeEnds?
  private let errors: PipeEnds?
  private let lock = NSLock()
  private var status: Int32?
  private var signalled = false

  public init(
    _ executable: String, _ arguments: [String], environment: [String: String], standardInput: Stream = .null,
    standardOutput: Stream = .null, standardError: Stream = .inherited
  ) throws {
    self.arguments = arguments
    input = standardInput == .pipe ? try PipeEnds() : nil
    output = standardOutput == .pipe ? try PipeEnds() : nil
    errors = standardError == .pipe ? try PipeEnds() : nil
    func redirection(_ stream: Stream, _ pipe: Int32?) -> Redirection {
      switch stream {
      case .null: .null
      case .pipe: .descriptor(pipe!)
      case .inherited: .inherited
      case .appending(let path): .appending(path)
      }
    }
    processIdentifier = try spawn(
      executable, arguments, environment: environment,
      standardInput: redirection(standardInput, input?.read), standardOutput: redirection(standardOutput, output?.write),
      standardError: redirection(standardError, errors?.write))
    input?.closeRead()
    output?.closeWrite()
    errors?.closeWrite()
  }

  /// A child nobody waited for ends with the object: its process group is killed (stopped or
  /// not), then it is reaped. (A keyring session ends its script gracefully first: `close`.)
  deinit {
    lock.withLock {
      if status == nil { kill(-processIdentifier, SIGKILL) }
    }
    waitUntilExit()
  }

  /// The read end of its stdout pipe (-1 without one).
  public var outputDescriptor: Int32 { output?.read ?? -1 }

  /// The read end of its stderr pipe (-1 without one).
  public var errorDescriptor: Int32 { errors?.read ?? -1 }

  /// Writes `bytes` to its stdin pipe, whole.
  public func write(_ bytes: Data) {
    guard let descriptor = input?.write, descriptor >= 0 else { return }
    var offset = 0
    while offset < bytes.count {
      let count = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
      if count > 0 { offset += count } else if count < 0, errno == EINTR { continue } else { return }
    }
  }

  /// Closes its stdin pipe: the child reads its end.
  public func closeInput() { input?.closeWrite() }

  public var isRunning: Bool { reap(waiting: false) == nil }

  /// SIGTERM, while it runs (never to a pid it no longer holds).
  public func terminate() { signal(SIGTERM) }

  /// `signal` to it, while it runs.
  public func signal(_ signal: Int32) {
    lock.withLock {
      if status == nil { kill(processIdentifier, signal) }
    }
  }

  public func waitUntilExit() { _ = reap(waiting: true) }

  /// Its exit status, or the number of the signal that ended it; waits for its end.
  public var terminationStatus: Int32 { reap(waiting: true) ?? -1 }

  /// Whether a signal ended it (not an exit); waits for its end.
  public var endedBySignal: Bool {
    _ = reap(waiting: true)
    return lock.withLock { signalled }
  }

  private func reap(waiting: Bool) -> Int32? {
    if waiting {
      // Waits for the end without reaping, outside the lock: `signal` from another thread is
      // not held up, and the zombie keeps the pid from being reused until the reap below.
      var info = siginfo_t()
      while lock.withLock({ status == nil }),
        waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) < 0, errno == EINTR
      {}
    }
    return lock.withLock {
      if let status { return status }
      var raw: Int32 = 0
      while true {
        let reaped = waitpid(processIdentifier, &raw, WNOHANG)
        if reaped == processIdentifier { break }
        if reaped == 0 { return nil }
        if errno == EINTR { continue }
        status = -1
        return status
      }
      let low = raw & 0x7f
      signalled = low != 0
      status = low == 0 ? (raw >> 8) & 0xff : low
      return status
    }
  }
}

/// glibc's posix_spawn_file_actions_addchdir_np (2.29 and later), which the Glibc module does not
/// export.
private let addChangeDirectory:
  (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else { return nil }
    return unsafeBitCast(
      symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
  }()

/// pipe2(2), which the Glibc module does not export either: a pipe made close-on-exec at once,
/// so no child another thread spawns meanwhile inherits it (and holds its end of file back).
private let createPipe: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = {
  guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else { return nil }
  return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
}()

/// Reaps `pid`: its exit status, or the number of the signal that ended it (as Foundation's
/// `terminationStatus` gave it); nil when `blocking` is false and it still runs.
private func waitForExit(_ pid: pid_t, blocking: Bool = true) -> Int32? {
  var status: Int32 = 0
  while true {
    let reaped = waitpid(pid, &status, blocking ? 0 : WNOHANG)
    if reaped == pid { break }
    if reaped == 0 { return nil }
    if errno != EINTR { return -1 }
  }
  let low = status & 0x7f
  return low == 0 ? (status >> 8) & 0xff : low
}


/// A child that exits before reading its stdin (a command refused before it reads a password)
/// makes the write to its pipe fail: that must be an error the write ignores, not SIGPIPE
/// ending the whole test process.
private let ignoreBrokenPipes: Void = {
  signal(SIGPIPE, SIG_IGN)
}()

/// Everything `descriptor` gives until its end. A read a signal interrupted is read again:
/// Foundation's `readDataToEndOfFile` and `availableData` trap on EINTR, which a test process
/// running dozens of children at once does see.
public func readAll(from descriptor: Int32) -> Data {
  var data = Data()
  while true {
    let chunk = readSome(from: descriptor)
    if chunk.isEmpty { return data }
    data.append(chunk)
  }
}

/// What one read of `descriptor` returns (blocking until there is some): empty at its end or on
/// an error other than EINTR.
public func readSome(from descriptor: Int32) -> Data {
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if count >= 0 { return Data(buffer[..<count]) }
    if errno != EINTR { return Data() }
  }
}

/// Writes a program a test will run (a script, a copy of the binary) through a descriptor that
/// is close-on-exec. Foundation's writers open theirs inheritable: a child another thread
/// spawned in that moment held the file open for writing, and running it then failed with
/// "Text file busy".
public func writeExecutable(_ contents: Data, to path: String, mode: mode_t = 0o755) throws {
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
  guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
  defer { close(descriptor) }
  var offset = 0
  while offset < contents.count {
    let count = contents[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    if count < 0, errno == EINTR { continue }
    guard count > 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    offset += count
  }
  fchmod(descriptor, mode)
}

/// `writeExecutable` of a script's text.
public func writeExecutable(_ script: String, to path: String, mode: mode_t = 0o755) throws {
  try writeExecutable(Data(script.utf8), to: path, mode: mode)
}

/// A copy of the program at `source`, written as `writeExecutable` writes.
public func copyExecutable(from source: String, to path: String) throws {
  let status = try FileManager.default.attributesOfItem(atPath: source)[.posixPermissions] as? Int ?? 0o755
  try writeExecutable(Data(contentsOf: URL(fileURLWithPath: source)), to: path, mode: mode_t(status))
}

/// Between fork and exec a child holds a copy of every descriptor of this process, close-on-exec
/// ones included, and so keeps alive any open-file-description lock taken through one: for that
/// instant a lock this process let go of is still held. The lease store's own tests take and
/// drop such locks in this process while end-to-end tests spawn dozens of children a second
/// beside them; they close the gate for each test (`.withoutSpawnsElsewhere`), and every child
/// this test process starts goes through it.
public enum SpawnGate {
  private static let condition = NSCondition()
  private nonisolated(unsafe) static var spawning = 0
  private nonisolated(unsafe) static var closed = false

  /// Runs `spawn` while the gate is open.
  public static func whileSpawning<T>(_ spawn: () throws -> T) rethrows -> T {
    condition.lock()
    while closed { condition.wait() }
    spawning += 1
    condition.unlock()
    defer {
      condition.lock()
      spawning -= 1
      condition.broadcast()
      condition.unlock()
    }
    return try spawn()
  }

  /// Waits until no child is being started, and keeps others from starting any until `open`.
  static func close() {
    condition.lock()
    while closed { condition.wait() }
    closed = true
    while spawning > 0 { condition.wait() }
    condition.unlock()
  }

  static func open() {
    condition.lock()
    closed = false
    condition.broadcast()
    condition.unlock()
  }
}

/// `@Suite(.withoutSpawnsElsewhere)`: while each test of the suite runs, no other test starts
/// a child through TestSupport (the test may start its own with posix_spawn: the lease probes).
public struct WithoutSpawnsElsewhereTrait: SuiteTrait, TestTrait, TestScoping {
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    guard testCase != nil else { return try await function() }
    SpawnGate.close()
    defer { SpawnGate.open() }
    try await function()
  }
}

extension Trait where Self == WithoutSpawnsElsewhereTrait {
  /// The suite's tests take and drop open-file-description locks in this process: no other
  /// test may start a child meanwhile (see `SpawnGate`).
  public static var withoutSpawnsElsewhere: Self { Self() }
}
