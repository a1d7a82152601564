import AccountsCore

/// The whole command line tool: parses argv against the command table, runs the command, and
/// turns any error into one line on stderr and the documented exit status.
public enum AccountsCommandLine {
  public static let version = "0.1.0"

  /// Runs `accounts` with `arguments` (argv, program name first) and returns the exit status.
  public static func main(_ arguments: [String]) -> Int32 {
    let parser = Parser(commands: CommandTable.all, defaultCommand: "list")
    var output: Output?
    do {
      switch try parser.parse(Array(arguments.dropFirst())) {
      case .version:
        writeAll(1, Array("accounts \(version)\n".utf8))
      case .help(let path):
        writeAll(1, Array(HelpRenderer.help(for: path, in: CommandTable.all).utf8))
      case .run(let invocation):
        let environment = try Environment.live()
        output = environment.output
        try invocation.path.command.handler!(invocation, environment)
        environment.output.flush()
      }
      return ExitStatus.success.rawValue
    } catch {
      output?.flush()  // data already produced goes out before the error
      let reported = error as? UserFacingError
      let line =
        "accounts: " + (reported?.message ?? "\(error)") + (reported?.fix.map { "; \($0)" } ?? "")
      writeAll(2, Array((line + "\n").utf8))
      return (reported?.status ?? .failure).rawValue
    }
  }
}
