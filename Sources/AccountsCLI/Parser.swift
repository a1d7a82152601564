import AccountsContract
import AccountsCore
import AccountsSystem

/// What the command line asks for.
enum ParsedCommandLine: Sendable {
  case run(Invocation)
  /// `-h`/`--help` (or `help`), for the command named so far; nil for the whole tool.
  case help(CommandPath?)
  case version
}

/// Turns argv into an invocation of one command of the table. Global options go anywhere;
/// `--` ends the options (and starts CMD of a command that runs one); `--name=value` and
/// `--name value` are the same, and so are `-j 2` and `-j2`. `ArgumentBinding` says which word is which argument.
struct Parser {
  let commands: [CommandSpec]
  let defaultCommand: String

  func parse(_ arguments: [String]) throws(CommandError) -> ParsedCommandLine {
    var groups: [CommandSpec] = []
    var command: CommandSpec?
    var positionals: [String] = []
    var options: [String: [String]] = [:]
    var onlyPositionals = false
    /// How many positionals came before `--`.
    var separator: Int?
    var index = 0

    func context() -> String {
      command.map { "accounts " + (groups.map(\.name) + [$0.name]).joined(separator: " ") }
        ?? "accounts"
    }

    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if !onlyPositionals, argument == "--" {
        onlyPositionals = true
        separator = positionals.count
        continue
      }
      if !onlyPositionals, argument.hasPrefix("-"), argument != "-" {
        // `otp --at T`: an option of the default subcommand of a group that runs one with words.
        if let group = command, let sub = defaultSubcommandTakingWords(group),
          sub.options.contains(where: { argument == "--" + $0.long || argument.hasPrefix("--" + $0.long + "=") })
        {
          groups.append(group)
          command = sub
        }
        let (spec, inline) = try option(argument, of: command, groups: groups, context: context())
        var value: String?
        if spec.takesValue {
          if let inline {
            value = inline
          } else if index < arguments.count {
            value = arguments[index]
            index += 1
          } else {
            throw .usage(
              "--\(spec.long) needs a value (\(spec.valueName!))",
              fix: "see `\(context()) --help`")
          }
        } else if inline != nil {
          throw .usage("--\(spec.long) takes no value", fix: "see `\(context()) --help`")
        }
        if options[spec.long] != nil, !spec.repeatable, spec.takesValue {
          throw .usage("--\(spec.long) is given twice", fix: "give it once")
        }
        options[spec.long, default: []].append(value ?? "")
        continue
      }
      // A word: the command, a subcommand, or an argument.
      if command == nil {
        command = try lookup(argument, in: commands, context: "accounts")
      } else if let group = command, group.subcommand(named: argument) == nil,
        let sub = defaultSubcommandTakingWords(group)
      {
        // `otp alice` is `otp code alice`: a word that names no subcommand is the default one's.
        groups.append(group)
        command = sub
        positionals.append(argument)
      } else if let group = command, group.isGroup {
        let groupContext = context()
        groups.append(group)
        command = try lookup(argument, in: group.subcommands, context: groupContext)
      } else {
        positionals.append(argument)
      }
    }

    if options["version"] != nil { return .version }
    if options["help"] != nil {
      return .help(command.map { CommandPath(groups: groups, command: $0) })
    }
    if command == nil {
      command = commands.first { $0.name == defaultCommand }!
    }
    while let group = command, group.isGroup {
      guard let name = group.defaultSubcommand, let sub = group.subcommand(named: name) else {
        return .help(CommandPath(groups: groups, command: group))
      }
      groups.append(group)
      command = sub
    }
    let path = CommandPath(groups: groups, command: command!)
    let values = try ArgumentBinding.bind(positionals, separator: separator, to: path)
    for spec in path.command.options where spec.required && options[spec.long] == nil {
      throw .usage(
        "`accounts \(path.name)` needs --\(spec.long) \(spec.valueName ?? "")"
          .trimmingTrailingSpace(),
        fix: "usage: \(path.usage)")
    }
    return .run(Invocation(path: path, optionValues: options, argumentValues: values))
  }

  /// The default subcommand of `group` when it takes arguments (`otp` runs `otp code [USER]`):
  /// then words and its options after the group's name are its own. Nil for a group whose
  /// default takes none (`backend` runs `backend list`), where any other word is a mistake.
  private func defaultSubcommandTakingWords(_ group: CommandSpec) -> CommandSpec? {
    guard group.isGroup, let name = group.defaultSubcommand, let sub = group.subcommand(named: name),
      !sub.arguments.isEmpty
    else { return nil }
    return sub
  }

  private func option(
    _ argument: String, of command: CommandSpec?, groups: [CommandSpec], context: String
  ) throws(CommandError) -> (OptionSpec, String?) {
    let available = (command?.options ?? []) + GlobalOptions.all
    // `exec bob ls -l`: "-l" belongs to the command to run, which needs a `--` before it.
    func fix() -> String {
      guard let command, command.trailingCommand != nil else { return "see `\(context) --help`" }
      return ArgumentBinding.putSeparatorFix(CommandPath(groups: groups, command: command))
    }
    if argument.hasPrefix("--") {
      let body = argument.dropFirst(2)
      let name = String(body.prefix { $0 != "=" })
      let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
      if let spec = available.first(where: { $0.long == name }) { return (spec, inline) }
      let suggestions = Suggestions.closest(
        to: "--" + name, in: available.map { "--" + $0.long }, limit: 2)
      throw .usage(
        "unknown option '--\(Names.printable(name))' for `\(context)`",
        fix: suggestions.isEmpty ? fix() : "did you mean \(Suggestions.phrase(suggestions))?")
    }
    // `-j 2`, or `-j2` as getopt reads it: a short option that takes a value may have it attached.
    let letters = Array(argument.dropFirst())
    guard let spec = available.first(where: { $0.short == letters[0] }), letters.count == 1 || spec.takesValue
    else {
      throw .usage("unknown option '\(Names.printable(argument))' for `\(context)`", fix: fix())
    }
    return (spec, letters.count == 1 ? nil : String(letters.dropFirst()))
  }

  private func lookup(
    _ word: String, in candidates: [CommandSpec], context: String
  ) throws(CommandError) -> CommandSpec {
    if let found = candidates.first(where: { $0.name == word || $0.aliases.contains(word) }) {
      return found
    }
    let names = candidates.filter { !$0.hidden }.flatMap { [$0.name] + $0.aliases }
    let suggestions = Suggestions.closest(to: word, in: names, limit: 3)
    throw .usage(
      "unknown command '\(Names.printable(word))' for `\(context)`",
      fix: suggestions.isEmpty
        ? "see `\(context) --help`" : "did you mean \(Suggestions.phrase(suggestions))?")
  }
}

extension String {
  func trimmingTrailingSpace() -> String {
    var copy = self
    while copy.last == " " { copy.removeLast() }
    return copy
  }
}
