import AccountsCore
import AccountsSystem
import Glibc

/// `accounts __lease-keeper`: keeps a held lease of a shared store alive while its holders run
/// (see `LeaseKeeper`). Started by `launch`, never by people.
enum LeaseKeeperCommand {
  static let spec = CommandSpec(
    "__lease-keeper",
    summary: "keep a held lease of a shared store alive while its holders run (used by lease)",
    hidden: true,
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    // Whatever `accounts lease` had open and not close-on-exec (its caller's pipes, an outer
    // lease's descriptors) would otherwise be held, and kept open, for as long as the keeper.
    closeDescriptors(from: 3)
    // The process `launch` waits for ends here; the keeper goes on in a child of its own, which
    // is then nobody's child but init's: the command `lease` becomes never sees it exit.
    let child = fork()
    if child != 0 { _exit(child > 0 ? 0 : ExitStatus.failure.rawValue) }
    _exit(LeaseKeeper.run(input: .standardInput) { line in
      try? FileDescriptor.standardError.writeAll(Array((line + "\n").utf8))
    })
  }

  /// Starts a keeper with `order` and returns the write end of the pipe it watches
  /// (close-on-exec: `LeaseGrant.inheritAcrossExec` hands it to the command).
  static func launch(_ order: [UInt8]) throws -> FileDescriptor {
    let (reading, writing): (FileDescriptor, FileDescriptor)
    do {
      (reading, writing) = try closeOnExecPipe()
    } catch {
      throw CommandError(.failure, "cannot start the lease keeper: \(error)")
    }
    defer { reading.close() }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, reading.rawValue, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("accounts"), strdup("__lease-keeper"), nil]
    defer { argv.forEach { free($0) } }
    var child = pid_t()
    let started = posix_spawn(&child, "/proc/self/exe", &actions, &attributes, argv, environ)
    guard started == 0 else {
      writing.close()
      throw CommandError(.failure, "cannot start the lease keeper: \(Errno(started))")
    }
    launched.append(child)
    do {
      try writing.writeAll(order)
    } catch {
      writing.close()
      throw CommandError(.failure, "cannot start the lease keeper: \(error)")
    }
    return writing
  }

  /// The first processes of the keepers started, not yet waited for: each forks the keeper
  /// and exits at once, and is waited for before this process becomes the command
  /// (`awaitLaunched`), so the command never has a child it did not start.
  nonisolated(unsafe) private static var launched: [pid_t] = []

  /// Waits for the keepers' first processes; false when one failed (its keeper never ran).
  static func awaitLaunched() -> Bool {
    var allStarted = true
    for child in launched {
      var status: Int32 = 0
      while waitpid(child, &status, 0) < 0, errno == EINTR {}
      if status != 0 { allStarted = false }
    }
    launched = []
    return allStarted
  }
}
