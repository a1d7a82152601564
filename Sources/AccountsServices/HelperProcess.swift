import AccountsContract
import AccountsCore
import AccountsSystem
import Glibc

/// The processes accounts starts from itself to outlive the command it becomes: the lease
/// keeper (`__lease-keeper`) and the token refresher (`__token-refresher`). One way to start
/// them: `accounts HIDDEN-COMMAND` through /proc/self/exe, with no signal blocked, stdout on
/// /dev/null, the command's own stderr, and on stdin a pipe that first carries its order (one
/// line; the only way a secret reaches it: never argv or the environment) and then stays open
/// for as long as anyone holds its write end. The caller hands that end to the command it
/// becomes, so the helper sees end-of-file when the command and whatever it started that holds
/// the descriptor have all exited, however they ended, SIGKILL included.
public enum HelperProcess {
  /// Starts `accounts command` with `order` on its standard input and returns the write end
  /// of that pipe (close-on-exec). `what` names the helper in errors ("the lease keeper").
  public static func launch(_ command: String, what: String, order: [UInt8]) throws -> FileDescriptor {
    let (reading, writing): (FileDescriptor, FileDescriptor)
    do {
      (reading, writing) = try closeOnExecPipe()
    } catch {
      throw CommandError(.failure, "cannot start \(what): \(error)")
    }
    defer { reading.close() }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, reading.rawValue, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    // The command's own stderr: once an adapter was loaded, fd 2 is the pipe its lines go to,
    // which nobody reads after this process becomes the command.
    let ownError = StandardStreams.error.rawValue
    if ownError != 2 { posix_spawn_file_actions_adddup2(&actions, ownError, 2) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("accounts"), strdup(command), nil]
    defer { argv.forEach { free($0) } }
    var child = pid_t()
    let started = posix_spawn(&child, "/proc/self/exe", &actions, &attributes, argv, environmentWithoutToken())
    guard started == 0 else {
      writing.close()
      throw CommandError(.failure, "cannot start \(what): \(Errno(started))")
    }
    launched.append(child)
    do {
      try writing.writeAll(order)
    } catch {
      writing.close()
      throw CommandError(.failure, "cannot start \(what): \(error)")
    }
    return writing
  }

  /// This process's environment without ACCOUNTS_TOKEN (an outer `exec` may have set it): a
  /// helper has no use for a token of the environment, and keeps none. The strings are
  /// `environ`'s own, which stays unchanged while the helper starts.
  private static func environmentWithoutToken() -> [UnsafeMutablePointer<CChar>?] {
    let prefix = Array((SessionExport.tokenVariable + "=").utf8)
    var kept: [UnsafeMutablePointer<CChar>?] = []
    var index = 0
    while let entry = environ[index] {
      index += 1
      let starts = prefix.indices.allSatisfy { entry[$0] == CChar(bitPattern: prefix[$0]) }
      if !starts { kept.append(entry) }
    }
    return kept + [nil]
  }

  /// In the helper, first thing: lets go of what its starter had open and not close-on-exec
  /// (its caller's pipes, an outer lease's descriptors), which it would otherwise hold for as
  /// long as it runs, then goes on in a child of its own, which is nobody's child but init's:
  /// the process `launch` started exits here, and the command its starter becomes never sees
  /// the helper exit.
  public static func detach() {
    closeDescriptors(from: 3)
    let child = fork()
    if child != 0 { _exit(child > 0 ? 0 : ExitStatus.failure.rawValue) }
  }

  /// The first processes of the helpers started, not yet waited for: each forks the helper
  /// and exits at once, and is waited for before this process becomes the command
  /// (`awaitLaunched`), so the command never has a child it did not start.
  nonisolated(unsafe) private static var launched: [pid_t] = []

  /// Waits for the helpers' first processes; false when one failed (its helper never ran).
  public static func awaitLaunched() -> Bool {
    var allStarted = true
    for child in launched where (try? waitForChild(child)) != 0 {
      allStarted = false
    }
    launched = []
    return allStarted
  }
}
