import AccountsCore
import Glibc

/// This program run again as a child, `accounts ARGUMENTS`, whose standard output is read line
/// by line against a deadline: for work that may crash or hang the process doing it (loading a
/// foreign library). Glibc only: posix_spawn of /proc/self/exe, a pipe, poll, waitpid.
///
/// The child's stdin and stderr are /dev/null. It is ended only by `kill()`, which signals
/// this child by its pid, never a process group or a name; the pid cannot be reused before
/// it is reaped here.
final class ChildProcess {
  let pid: pid_t
  private let output: FileDescriptor
  private var buffer: [UInt8] = []
  /// The wait status once reaped.
  private var status: Int32?

  /// How the child ended.
  enum Termination: Equatable {
    case exited(Int32)
    case signaled(Int32)
  }

  enum Event: Equatable {
    case line(String)
    /// Ended, every line it wrote read.
    case ended(Termination)
    case timedOut
  }

  struct StartError: Error {
    let errno: Errno
  }

  /// Starts `accounts ARGUMENTS` with this process's environment plus `environment`.
  init(arguments: [String], environment extra: [String: String] = [:]) throws(StartError) {
    // A parent that ignores SIGCHLD hands that down, and then the kernel reaps children
    // itself: waitpid could not tell a crash from a hang. This process starts no other child.
    signal(SIGCHLD, SIG_DFL)
    var ends: [Int32] = [-1, -1]
    // pipe2 is not in the Glibc module; this process starts no other child meanwhile.
    guard pipe(&ends) == 0 else { throw StartError(errno: .current) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
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
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    // The environment as it is, byte for byte (a variable that is not UTF-8 is passed on
    // untouched), with `extra` in place of what it names.
    var inherited: [UnsafeMutablePointer<CChar>?] = []
    var entry = environ
    while let pointer = entry.pointee {
      entry += 1
      let name = String(cString: pointer).prefix { $0 != "=" }
      if extra[String(name)] == nil { inherited.append(strdup(pointer)) }
    }
    let argv = (["accounts"] + arguments).map { strdup($0) } + [nil]
    let envp = inherited + extra.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var child = pid_t()
    let result = posix_spawn(&child, "/proc/self/exe", &actions, &attributes, argv, envp)
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
    if status == nil { kill() }
    output.close()
  }

  /// The next line the child wrote, its end, or `.timedOut` when neither came before
  /// `deadline` (CLOCK_MONOTONIC nanoseconds).
  func next(until deadline: UInt64) -> Event {
    while true {
      if let newline = buffer.firstIndex(of: 10) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return .line(line)
      }
      if let status {
        // Reaped and drained: a partial last line is dropped with the process.
        return .ended(Self.termination(status))
      }
      let now = Self.now()
      guard now < deadline else { return .timedOut }
      var ready = pollfd(fd: output.rawValue, events: Int16(POLLIN), revents: 0)
      // Short slices: the pipe's end can outlive the child (a grandchild holding it).
      _ = poll(&ready, 1, Int32(min(deadline - now, 50_000_000) / 1_000_000) + 1)
      let open = drain()
      var waited: Int32 = 0
      if waitpid(pid, &waited, WNOHANG) == pid {
        _ = drain()
        status = waited
      } else if !open {
        usleep(5_000)  // end of file while the child lives on: poll would return at once
      }
    }
  }

  /// Ends the child (SIGKILL to its pid) and reaps it.
  func kill() {
    guard status == nil else { return }
    _ = Glibc.kill(pid, SIGKILL)
    var waited: Int32 = 0
    while waitpid(pid, &waited, 0) < 0, errno == EINTR {}
    status = waited
  }

  /// Waits for the child to end by itself until `deadline`, then kills it.
  func finish(until deadline: UInt64) -> Termination {
    while true {
      switch next(until: deadline) {
      case .line: continue
      case .ended(let termination): return termination
      case .timedOut:
        kill()
        return Self.termination(status!)
      }
    }
  }

  /// Reads what is in the pipe; false at its end.
  private func drain() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(output.rawValue, $0.baseAddress, $0.count) }
      if count > 0 {
        buffer += chunk[..<count]
      } else if count == 0 {
        return false
      } else if errno != EINTR {
        return true  // EAGAIN: nothing more for now
      }
    }
  }

  private static func termination(_ status: Int32) -> Termination {
    let signal = status & 0x7F
    return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
  }

  /// CLOCK_MONOTONIC in nanoseconds.
  static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  /// "SIGSEGV" for 11: the names of the signals that end a process.
  static func signalName(_ signal: Int32) -> String {
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
