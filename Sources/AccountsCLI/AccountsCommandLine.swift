import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem
import Glibc

/// The whole command line tool: parses argv against the command table, runs the command, and
/// turns any error into one line on stderr and the documented exit status.
public enum AccountsCommandLine {
  /// Runs `accounts` with the process's own argv, refusing arguments that are not UTF-8: read
  /// as Swift strings they would turn into U+FFFD, and two different names into one account.
  public static func main() -> Int32 {
    FatalSignals.endProcessAfterReport()
    StandardStreams.guardDescriptors()
    var arguments: [String] = []
    for index in 0..<Int(CommandLine.argc) {
      guard let pointer = CommandLine.unsafeArgv[index] else { continue }
      let bytes = UnsafeBufferPointer(
        start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
      guard let text = String(validating: bytes, as: UTF8.self) else {
        return report(CommandError.usage(
          "argument \(index) is not valid UTF-8 text",
          fix: "names, options and values must be UTF-8; check the encoding of your terminal or script"))
      }
      arguments.append(text)
    }
    return main(arguments)
  }

  /// Runs `accounts` with `arguments` (argv, program name first) and returns the exit status.
  public static func main(_ arguments: [String]) -> Int32 {
    StandardStreams.guardDescriptors()
    let parser = Parser(commands: CommandTable.all, defaultCommand: "list")
    var output: Output?
    do {
      switch try parser.parse(commandArguments(arguments)) {
      case .version:
        try StandardStreams.writeToStandardOutput(Array("accounts \(version)\n".utf8))
      case .help(let path):
        try StandardStreams.writeToStandardOutput(Array(HelpRenderer.help(for: path, in: CommandTable.all).utf8))
      case .run(let invocation):
        try invocation.checkValues()
        let environment = try Environment.live()
        output = environment.output
        try perform(invocation, environment)
        try environment.output.flush()
      }
      return ExitStatus.success.rawValue
    } catch {
      // Data already produced goes out before the error; if it cannot, that is said too.
      do throws(OutputError) {
        try output?.flush()
      } catch let failure {
        _ = report(failure)
      }
      return report(error)
    }
  }

  /// Runs the command of `invocation` in `environment`, with the global options that shape its
  /// talk (`--quiet`) applied first.
  static func perform(_ invocation: Invocation, _ environment: Environment) throws {
    environment.output.quiet = invocation.quiet
    try invocation.path.command.handler!(invocation, environment)
  }

  /// The arguments after the program name, as `accounts` reads them. git runs a credential
  /// helper named `accounts` as `git-credential-accounts ACTION` (gitcredentials(7)); that
  /// program is a link to this one, installed beside it, and is `accounts git-credential ACTION`.
  static func commandArguments(_ arguments: [String]) -> [String] {
    let rest = Array(arguments.dropFirst())
    let program = arguments.first?.split(separator: "/").last.map(String.init)
    return program == GitCredentialCommand.program ? [GitCredentialCommand.spec.name] + rest : rest
  }

  /// Ends the process with `status`. When the library abandoned a Secret Service call (see
  /// `PrivateLibrary.abandonedACall`), its thread may still hold GLib's locks, so exit handlers
  /// are not run: all output has been written by then (accounts writes with write(2), nothing
  /// is buffered). Otherwise a library still loading on a thread of its own (libcurl, see
  /// `BackgroundLoads`) finishes first.
  public static func exit(_ status: Int32) -> Never {
    if PrivateLibrary.abandonedACall { _exit(status) }
    BackgroundLoads.settle()
    Glibc.exit(status)
  }

  /// Prints the one line for `error` on stderr and returns its exit status.
  private static func report(_ error: Error) -> Int32 {
    if let quiet = error as? QuietFailure { return quiet.status.rawValue }
    let reported = error as? UserFacingError
    let line = "accounts: " + (reported?.explanation ?? "\(error)")
    try? StandardStreams.error.writeAll(Array((Names.printable(line, limit: .max) + "\n").utf8))
    return (reported?.status ?? .failure).rawValue
  }
}
