import AccountsCore

/// What a value on the command line names, so completion can offer the right candidates.
enum CompletionKind: String, Sendable, CaseIterable {
  case none
  /// Saved accounts, read from the index.
  case account
  /// Configured backends, read from the configuration.
  case backend
  /// Installed adapter names.
  case adapter
  /// bash, zsh, fish.
  case shell
  /// switch, login, logout: what a hook runs after.
  case hookEvent = "event"
  /// A command name (for `help`).
  case command
  /// An HTTP method word (`HTTPMethod.all`).
  case method
  /// get, store, erase: what git asks a credential helper.
  case credentialAction = "credential-action"
  /// Every tag some saved account has, read from the index.
  case tag
  /// The tags of the account named earlier on the line (`untag USER TAG...`).
  case accountTag = "account-tag"
  /// A directory, completed by the shell itself (bash `compgen -d`, zsh `_files -/`, fish
  /// `__fish_complete_directories`).
  case directory
  /// A file, completed by the shell itself (bash `compgen -f`, zsh `_files`, fish
  /// `__fish_complete_path`).
  case file
  /// A non-secret setting name of the adapter named on the line (`backend add --adapter A --set
  /// ...`) or of the backend named earlier on it (`backend set corp base_url=...`), offered as
  /// `NAME=`: read from the adapter's descriptor, loaded in a child process.
  case setting
  /// A secret setting name, of the adapter or backend as for `setting` (`--secret NAME`).
  case secretSetting = "secret-setting"
  /// A setting the backend named earlier on the line has and may lose (`backend set corp
  /// --unset KEY`): read from the config, less those its adapter requires.
  case unsettableSetting = "unsettable-setting"
  /// The command line after exec's or lease's `--`: a command name, then that command's own
  /// words, completed by the shell itself (bash `compgen -c`, zsh `_normal`, fish
  /// `__fish_complete_subcommand`), never account names.
  case commandLine = "command-line"
}

/// One option of a command, or a global option.
package struct OptionSpec: Sendable, Hashable {
  /// The name after `--`.
  package let long: String
  package let short: Character?
  /// Nil for a flag; else how the help shows the value, e.g. "KEY=VALUE".
  package let valueName: String?
  package let repeatable: Bool
  /// The parser rejects the command line without it; usage shows it without brackets.
  package let required: Bool
  let completion: CompletionKind
  package let help: String
  /// What its value must be, checked before the command runs.
  let kind: ValueKind

  init(
    _ long: String, short: Character? = nil, value: String? = nil, repeatable: Bool = false,
    required: Bool = false, completion: CompletionKind = .none, kind: ValueKind = .text, help: String
  ) {
    self.kind = kind
    self.long = long
    self.short = short
    self.valueName = value
    self.repeatable = repeatable
    self.required = required
    self.completion = completion
    self.help = help
  }

  var takesValue: Bool { valueName != nil }

  /// "--set KEY=VALUE", "-h, --help"
  var spelling: String {
    (short.map { "-\($0), " } ?? "") + "--\(long)" + (valueName.map { " \($0)" } ?? "")
  }
}

/// One positional argument of a command. `CommandSpec.layoutProblems` says which sequences of
/// them the parser can bind; `ArgumentBinding` binds them.
package struct ArgumentSpec: Sendable, Hashable {
  /// Which words an argument takes.
  enum Kind: Sendable, Hashable {
    /// Any word.
    case word
    /// An HTTP method word (`HTTPMethod.all`), in any case, bound in upper case. An optional
    /// argument right before a METHOD is filled only by a word that is not a method word, so
    /// `request bob GET me` and `request GET me` both read as meant.
    case method
    /// The command a command runs: every word after `--`, and only those
    /// (`exec [USER] -- CMD...`). Always the last argument; optional only for a command that
    /// also works without one (`lease ... [-- CMD...]`): then no `--` at all means none, and a
    /// `--` with nothing after it is still a usage error.
    case trailingCommand
  }

  package let name: String
  package let help: String
  let completion: CompletionKind
  let kind: Kind
  let optional: Bool
  /// Takes every remaining argument.
  let variadic: Bool
  /// An optional account argument that, when absent, is chosen with the picker on a terminal
  /// (`switch`), not by `--account`, ACCOUNTS_ACCOUNT or the slot.
  let pickedWhenAbsent: Bool
  /// What each word must be, checked before the command runs.
  let valueKind: ValueKind

  init(
    _ name: String, kind: Kind = .word, completion: CompletionKind = .none, optional: Bool = false,
    variadic: Bool = false, pickedWhenAbsent: Bool = false, valueKind: ValueKind = .text, help: String
  ) {
    self.valueKind = valueKind
    self.name = name
    self.pickedWhenAbsent = pickedWhenAbsent
    self.help = help
    self.completion = completion
    self.kind = kind
    self.optional = optional
    self.variadic = variadic
  }

  /// A required HTTP method word, e.g. `METHOD` of `request`.
  static func method(_ name: String = "METHOD", help: String) -> ArgumentSpec {
    ArgumentSpec(name, kind: .method, completion: .method, help: help)
  }

  /// The words after `--`, e.g. `CMD...` of `exec`; `optional` for `[-- CMD...]`.
  static func trailingCommand(_ name: String = "CMD", optional: Bool = false, help: String) -> ArgumentSpec {
    ArgumentSpec(name, kind: .trailingCommand, completion: .commandLine, optional: optional, variadic: true, help: help)
  }

  /// "USER", "[USER]", "KEY=VALUE...", "-- CMD..."
  package var usage: String {
    let base = name + (variadic ? "..." : "")
    if kind == .trailingCommand { return optional ? "[-- \(base)]" : "-- " + base }
    return optional ? "[\(base)]" : base
  }
}

/// The words a METHOD argument takes.
enum HTTPMethod {
  static let all = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

  /// `word` in upper case when it is a method word in any case ("post" gives "POST"), else
  /// nil. Only ASCII letters count: "optıons" (dotless i) is no method, though Swift's
  /// `uppercased()` would turn it into OPTIONS.
  static func normalised(_ word: String) -> String? {
    guard word.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
    let upper = word.uppercased()
    return all.contains(upper) ? upper : nil
  }
}

/// The secret a command reads from stdin or a no-echo prompt. A word too many on its command
/// line may be that secret typed there, so the parser reports it without repeating it.
enum SecretInput: Sendable {
  case password, seed, secretSetting, credential

  /// "a password"
  var noun: String {
    switch self {
    case .password: "a password"
    case .seed: "a seed"
    case .secretSetting: "a secret setting"
    case .credential: "a credential"
    }
  }

  /// Where the command reads it from: git-credential never prompts (git owns the terminal).
  var source: String { self == .credential ? "stdin" : "stdin or a prompt" }
}

/// A command or a group of subcommands: its spelling, help, options and handler are written
/// here once, and the parser, `--help`, the completion scripts and the man page all read them.
package struct CommandSpec: Sendable {
  typealias Handler = @Sendable (Invocation, Environment) throws -> Void

  package let name: String
  package let aliases: [String]
  /// One line, lower case, no full stop: shown in command lists.
  package let summary: String
  /// Paragraphs for `--help` and the man page.
  package let discussion: String
  package let arguments: [ArgumentSpec]
  package let options: [OptionSpec]
  /// (command line, what it does)
  package let examples: [(String, String)]
  let subcommands: [CommandSpec]
  /// The subcommand run when a group is called without one.
  let defaultSubcommand: String?
  /// Internal commands (the completion entry point, the helper processes accounts starts):
  /// parsed, never listed.
  package let hidden: Bool
  /// The secret it reads, if any (a command with --password-stdin reads a password).
  let secretInput: SecretInput?
  let handler: Handler?

  /// A command. With `picksAccount` it acts on one account chosen as SPEC §3 says: it takes
  /// `[USER]` before `arguments` and `--account USER` after `options`, and its handler asks
  /// `Environment.pickAccount` which account that is.
  init(
    _ name: String, aliases: [String] = [], summary: String, discussion: String = "",
    picksAccount: Bool = false, arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
    examples: [(String, String)] = [], hidden: Bool = false, secretInput: SecretInput? = nil,
    handler: @escaping Handler
  ) {
    self.name = name
    self.aliases = aliases
    self.summary = summary
    self.discussion = discussion
    self.arguments = (picksAccount ? [SharedArguments.optionalAccount] : []) + arguments
    self.options = options + (picksAccount ? [SharedArguments.accountOption] : [])
    self.examples = examples
    self.subcommands = []
    self.defaultSubcommand = nil
    self.hidden = hidden
    self.secretInput = secretInput ?? (self.options.contains(SharedArguments.passwordStdin) ? .password : nil)
    self.handler = handler
  }

  /// A group such as `backend`, whose work is done by its subcommands.
  init(
    group name: String, summary: String, discussion: String = "", subcommands: [CommandSpec],
    defaultSubcommand: String? = nil
  ) {
    self.name = name
    self.aliases = []
    self.summary = summary
    self.discussion = discussion
    self.arguments = []
    self.options = []
    self.examples = []
    self.subcommands = subcommands
    self.defaultSubcommand = defaultSubcommand
    self.hidden = false
    self.secretInput = nil
    self.handler = nil
  }

  var isGroup: Bool { !subcommands.isEmpty }

  /// The `-- CMD...` argument, when the command runs a command.
  var trailingCommand: ArgumentSpec? {
    arguments.last.flatMap { $0.kind == .trailingCommand ? $0 : nil }
  }

  func subcommand(named name: String) -> CommandSpec? {
    subcommands.first { $0.name == name || $0.aliases.contains(name) }
  }

  var visibleSubcommands: [CommandSpec] { subcommands.filter { !$0.hidden } }
}

/// A command together with the path of group names that leads to it, e.g. `backend add`.
package struct CommandPath: Sendable {
  let groups: [CommandSpec]
  package let command: CommandSpec

  /// "backend add"
  package var name: String { (groups.map(\.name) + [command.name]).joined(separator: " ") }

  /// "accounts backend add NAME --adapter A [--set KEY=VALUE...]"
  var usage: String { usageParts.joined(separator: " ") }

  /// The words of `usage`, an option with its value as one word.
  var usageParts: [String] {
    var parts = ["accounts", name]
    if command.isGroup {
      parts.append("<\(command.visibleSubcommands.map(\.name).joined(separator: "|"))>")
    }
    parts += command.arguments.map(\.usage)
    for option in command.options {
      let text = "--\(option.long)" + (option.valueName.map { " \($0)" } ?? "")
      parts.append(option.required ? text : "[\(text)\(option.repeatable ? "..." : "")]")
    }
    return parts
  }
}
