import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc

/// `accounts __probe-adapters PATH`: loads one adapter file and describes it on a JSON line
/// (see AdapterProbe, which runs it as a child process per file and believes nothing else it
/// writes). First `{"ready": true}` once the adapter host is loaded, before any adapter code
/// runs; then the file's entry; then `_exit`, so that no destructor or atexit handler of the
/// adapter runs after the answer.
enum ProbeAdaptersCommand {
  static let spec = CommandSpec(
    "__probe-adapters",
    summary: "load an adapter file and describe it on a JSON line (used by adapters and doctor)",
    arguments: [path], hidden: true,
    handler: run)

  static let path = ArgumentSpec("PATH", help: "the adapter file to load")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    // A parent interrupted while this loads (Ctrl-C on a TAB) takes this probe with it: a
    // hanging adapter would otherwise keep it alive for ever, in a session no signal reaches.
    guard ChildProcess.endWithParent(environment.variables) else { _exit(1) }
    // The lines go to a copy of stdout, and stdout itself to /dev/null: an adapter that prints
    // while it loads must not garble them.
    let answers = (try? FileDescriptor.standardOutput.duplicate(atLeast: 3))?.rawValue ?? -1
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    guard answers >= 0, null >= 0, dup2(null, 1) == 1 else {
      throw CommandError(.failure, "cannot set up the output: \(Errno.current)")
    }
    close(null)
    func answer(_ line: ProbeLine) { try? FileDescriptor(rawValue: answers).writeAll(Array((line.text + "\n").utf8)) }
    let host: AdapterHosting
    do {
      host = try environment.adapterHost()
    } catch let error as AdapterLoadError {
      answer(.error(error))
      _exit(0)
    }
    answer(.ready)
    answer(.entry(host.probe(invocation.argument(path)!)))
    _exit(0)
  }
}
