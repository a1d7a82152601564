import CAccountsSystem
import Glibc
import SecretMemory

/// A program run as a child whose output is read line by line against a deadline: for work
/// that may crash or hang the process doing it (loading a foreign library, the dynamic loader
/// listing one). Glibc only: posix_spawn, a pipe, poll, waitid, waitpid.
///
/// The child starts a session of its own (`setsid`: its own process group, no controlling
/// terminal), so that what it does to "its" group (`kill(0, SIGTERM)`) reaches neither this
/// process nor the shell's job, and whatever it forks stays in that group. When it ends, or
/// is stopped, the whole group is killed by the group id created here, before the child is
/// reaped: until then its zombie holds the id, so the id cannot name anyone else's group.
/// Nothing is ever signalled by name or outside that group.
public final class ChildProcess {
  /// The child's pid, and the id of its session and process group.
  public let pid: pid_t
  private let output: FileDescriptor
  private var buffer: [UInt8] = []
  private let lineLimit: Int
  /// The wait status once ended (reaped only by `reap()`).
  private var status: Int32?
  private var reaped = false
  /// Microseconds to wait for the end of a child whose output has ended.
  private var pause: UInt32 = 50

  /// How the child ended.
  public enum Termination: Equatable, Sendable {
    case exited(Int32)
    case signaled(Int32)
  }

  public enum Event: Equatable, Sendable {
    case line(String)
    /// A line longer than the limit (a child flooding the pipe): the rest is not read.
    case lineTooLong
    /// Ended, every line it wrote read.
    case ended(Termination)
    case timedOut
  }

  /// What the child's environment is.
  public enum Variables {
    /// This process's environment byte for byte (a variable that is not UTF-8 is passed on
    /// untouched), with these in place of what they name.
    case inherited(adding: [String: String])
    /// This process's environment as `inherited` gives it, without the variables `removing`
    /// names, and with `secret` as the variable it names: its bytes are handed on as they
    /// are (a token need not be UTF-8) and the copy made for the child is wiped.
    case inheritedExcept(removing: Set<String>, adding: [String: String], secret: (name: String, value: SecretBytes)?)
    /// Only these.
    case only([String: String])
  }

  public struct StartError: Error {
    public let errno: Errno
  }

  /// glibc's POSIX_SPAWN_SETSID (2.26 and later), which the Glibc module does not export.
  static let spawnSetSessionID: Int32 = 0x80

  /// Starts `executable` with `arguments` (argv[0] first). Its stdout is read here; its stderr
  /// is read with it when `readErrors`, else /dev/null; its stdin is /dev/null.
  public init(
    _ executable: String, arguments: [String], environment: Variables, readErrors: Bool = false,
    lineLimit: Int = 1 << 20
  ) throws(StartError) {
    self.lineLimit = lineLimit
    Self.unignoreChildSignal()
    var ends: [Int32] = [-1, -1]
    // pipe2 is not in the Glibc module: the ends are made close-on-exec at once. Another
    // thread's child may still inherit the write end; `next` then learns the end from waitid.
    guard pipe(&ends) == 0 else { throw StartError(errno: .current) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
    if readErrors {
      posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
    } else {
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    // Signals as a fresh program expects them, whatever this thread blocks or ignores.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | Self.spawnSetSessionID))

    let argv = arguments.map { strdup($0) } + [nil]
    let envp = Self.environment(environment) + [nil]
    defer {
      argv.forEach { free($0) }
      for entry in envp {
        if let entry { wipe(entry, count: strlen(entry)) }
        free(entry)
      }
    }
    var child = pid_t()
    let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
    close(ends[1])
    guard result == 0 else {
      close(ends[0])
      throw StartError(errno: Errno(result))
    }
    pid = child
    output = FileDescriptor(rawValue: ends[0])
    _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
  }

  deinit {
    reap()
    output.close()
  }

  /// The next line the child wrote, its end, or `.timedOut` when neither came before
  /// `deadline` (CLOCK_MONOTONIC nanoseconds).
  public func next(until deadline: UInt64) -> Event {
    while true {
      if let newline = buffer.firstIndex(of: 10) {
        // Paths the dynamic loader prints are bytes: not UTF-8 shows as \xNN, never as U+FFFD.
        let line = fileNameText(buffer[..<newline])
        buffer.removeSubrange(...newline)
        return .line(line)
      }
      if buffer.count > lineLimit { return .lineTooLong }
      if let status {
        // Ended and drained: a last line without its line break is a line too (a reader
        // that counts lines must see it).
        if !buffer.isEmpty {
          defer { buffer.removeAll() }
          return .line(fileNameText(buffer))
        }
        return .ended(Self.termination(status))
      }
      let now = Self.now()
      guard now < deadline else { return .timedOut }
      var ready = pollfd(fd: output.rawValue, events: Int16(POLLIN), revents: 0)
      // Short slices: the pipe's end can outlive the child (a grandchild holding it).
      _ = poll(&ready, 1, Int32(min(deadline - now, 50_000_000) / 1_000_000) + 1)
      let open = drain()
      if let ended = endedStatus() {
        _ = drain()
        status = ended
      } else if !open {
        // End of file while the child lives on (it is exiting, or a grandchild holds the
        // pipe): poll would return at once. Short naps first: most children are exiting.
        usleep(pause)
        pause = min(pause * 2, 5_000)
      }
    }
  }

  /// Waits until `deadline` for the child to end by itself, reading and dropping what it
  /// writes; nil when it did not, and was stopped.
  public func end(until deadline: UInt64) -> Termination? {
    while true {
      switch next(until: deadline) {
      case .line: continue
      case .lineTooLong: buffer.removeAll()
      case .ended(let termination):
        reap()
        return termination
      case .timedOut:
        reap()
        return nil
      }
    }
  }

  /// Kills the child's whole process group (SIGKILL, by the group id created for it) and
  /// reaps the child. Called when it has ended too: what it forked goes with it.
  public func reap() {
    guard !reaped else { return }
    reaped = true
    _ = Glibc.kill(-pid, SIGKILL)
    let waited = try? waitForChild(pid)
    if status == nil { status = waited }
  }

  /// The wait status when the child has ended, without reaping it (WNOWAIT).
  private func endedStatus() -> Int32? {
    var info = siginfo_t()
    guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
      info._sifields._sigchld.si_pid == pid
    else { return nil }
    let value = info._sifields._sigchld.si_status
    // As waitpid would say it: exit status in bits 8-15, or the signal in bits 0-6.
    return info.si_code == CLD_EXITED ? (value & 0xFF) << 8 : value & 0x7F
  }

  /// Reads what is in the pipe; false at its end.
  private func drain() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while buffer.count <= lineLimit {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(output.rawValue, $0.baseAddress, $0.count) }
      if count > 0 {
        buffer += chunk[..<count]
      } else if count == 0 {
        return false
      } else if errno != EINTR {
        return true  // EAGAIN: nothing more for now
      }
    }
    return true
  }

  /// A parent that ignores SIGCHLD hands that down, and then the kernel reaps children
  /// itself: waitid could not tell a crash from a hang. Only SIG_IGN is changed: a handler
  /// someone installed (Foundation's, in tests) is left alone.
  private static func unignoreChildSignal() {
    var current = sigaction()
    guard sigaction(SIGCHLD, nil, &current) == 0 else { return }
    if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
      signal(SIGCHLD, SIG_DFL)
    }
  }

  private static func environment(_ variables: Variables) -> [UnsafeMutablePointer<CChar>?] {
    switch variables {
    case .only(let only):
      return only.map { strdup("\($0.key)=\($0.value)") }
    case .inherited(let extra):
      return environment(.inheritedExcept(removing: [], adding: extra, secret: nil))
    case .inheritedExcept(let removed, let extra, let secret):
      var inherited: [UnsafeMutablePointer<CChar>?] = []
      var entry = environ
      while let pointer = entry.pointee {
        entry += 1
        let name = String(String(cString: pointer).prefix { $0 != "=" })
        if extra[name] == nil, !removed.contains(name), name != secret?.name { inherited.append(strdup(pointer)) }
      }
      inherited += extra.map { strdup("\($0.key)=\($0.value)") }
      if let (name, value) = secret {
        let prefix = Array((name + "=").utf8)
        let copy = malloc(prefix.count + value.count + 1)!.assumingMemoryBound(to: CChar.self)
        prefix.withUnsafeBytes { UnsafeMutableRawPointer(copy).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        value.withUnsafeBytes { bytes in
          if let base = bytes.baseAddress { (UnsafeMutableRawPointer(copy) + prefix.count).copyMemory(from: base, byteCount: bytes.count) }
        }
        copy[prefix.count + value.count] = 0
        inherited.append(copy)
      }
      return inherited
    }
  }

  static func termination(_ status: Int32) -> Termination {
    let signal = status & 0x7F
    return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
  }

  /// CLOCK_MONOTONIC in nanoseconds.
  public static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  /// "SIGSEGV" for 11: the names of the signals that end a process.
  public static func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGSEGV: "SIGSEGV"
    case SIGABRT: "SIGABRT"
    case SIGBUS: "SIGBUS"
    case SIGILL: "SIGILL"
    case SIGFPE: "SIGFPE"
    case SIGTRAP: "SIGTRAP"
    case SIGSYS: "SIGSYS"
    case SIGKILL: "SIGKILL"
    case SIGTERM: "SIGTERM"
    case SIGINT: "SIGINT"
    case SIGHUP: "SIGHUP"
    case SIGQUIT: "SIGQUIT"
    case SIGPIPE: "SIGPIPE"
    case SIGALRM: "SIGALRM"
    case SIGXCPU: "SIGXCPU"
    case SIGXFSZ: "SIGXFSZ"
    case SIGUSR1: "SIGUSR1"
    case SIGUSR2: "SIGUSR2"
    default: "signal \(signal)"
    }
  }
}

extension ChildProcess {
  /// The variable that tells a child of accounts the process id of the accounts process that
  /// started it (`endWithParent`).
  public static let parentVariable = "ACCOUNTS_PARENT_PID"

  /// This process's entry for `parentVariable`, for a child's environment.
  public static var parentEntry: [String: String] { [parentVariable: String(getpid())] }

  /// In a child of accounts started with `parentEntry`: the kernel ends it (SIGKILL) when the
  /// thread that started it ends, so that a parent killed by Ctrl-C or any signal leaves no
  /// child behind in its session of its own, where that signal never reaches. False when that
  /// parent has already ended (the child should end now); true, doing nothing, without the
  /// variable (run by hand).
  public static func endWithParent(_ variables: [String: String]) -> Bool {
    guard let text = variables[parentVariable] else { return true }
    guard let parent = pid_t(text), parent > 0 else { return false }
    return accounts_end_with_parent(parent) == 1
  }
}
