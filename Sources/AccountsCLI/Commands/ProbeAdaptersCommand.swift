import AccountsCore
import Glibc

/// `accounts __probe-adapters PATH...`: loads each adapter file and prints one JSON line per
/// file as soon as it is done with it (see AdapterProbe, which runs it as a child process and
/// learns from the lines which file a crash or a hang belongs to).
enum ProbeAdaptersCommand {
  static let paths = ArgumentSpec("PATH", variadic: true, help: "adapter files to load")

  static let spec = CommandSpec(
    "__probe-adapters",
    summary: "load adapter files and describe each on a JSON line (used by adapters and doctor)",
    arguments: [paths], hidden: true,
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    // The lines go to a copy of stdout, and stdout itself to /dev/null: an adapter that prints
    // while it loads must not garble them.
    let answers = fcntl(1, F_DUPFD_CLOEXEC, 3)
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    guard answers >= 0, null >= 0, dup2(null, 1) == 1 else {
      throw CommandError(.failure, "cannot set up the output: \(Errno.current)")
    }
    close(null)
    func answer(_ line: ProbeLine) { try? FileDescriptor(rawValue: answers).writeAll(Array((line.text + "\n").utf8)) }
    let host: AdapterHosting
    do {
      host = try environment.adapterHost()
    } catch let error as AdapterError {
      answer(.error(error))
      return
    }
    for path in invocation.arguments(paths) {
      answer(.entry(host.probe(path)))
    }
  }
}
