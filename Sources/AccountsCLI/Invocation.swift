/// A parsed command line: which command, and the values of its options and arguments. Handlers
/// ask by spec (`invocation.isSet(AddCommand.remember)`), never by spelling.
struct Invocation: Sendable {
  let path: CommandPath
  let optionValues: [String: [String]]
  let argumentValues: [String: [String]]

  func isSet(_ option: OptionSpec) -> Bool { optionValues[option.long] != nil }
  func value(_ option: OptionSpec) -> String? { optionValues[option.long]?.last }
  func values(_ option: OptionSpec) -> [String] { optionValues[option.long] ?? [] }
  func argument(_ argument: ArgumentSpec) -> String? { argumentValues[argument.name]?.first }
  func arguments(_ argument: ArgumentSpec) -> [String] { argumentValues[argument.name] ?? [] }

  /// `--json`
  var json: Bool { isSet(GlobalOptions.json) }
  /// `--backend NAME`
  var backend: String? { value(GlobalOptions.backend) }
  /// `-q/--quiet`
  var quiet: Bool { isSet(GlobalOptions.quiet) }
}

/// Options every command accepts, before or after the command name.
package enum GlobalOptions {
  static let json = OptionSpec(
    "json", help: "print machine-readable JSON on stdout, with stable keys")
  static let backend = OptionSpec(
    "backend", value: "NAME", completion: .backend,
    help: "the backend that account names refer to (for USER without @BACKEND)")
  static let quiet = OptionSpec(
    "quiet", short: "q", help: "print no status lines nor progress on stderr (errors and warnings still), e.g. in CI logs")
  static let help = OptionSpec("help", short: "h", help: "show help for the command and exit")
  static let version = OptionSpec("version", help: "print the version and exit")

  package static let all = [json, backend, quiet, help, version]
}
