import AccountsContract
import AccountsCore
import AccountsSystem

/// `--help` text, from the command table.
package enum HelpRenderer {
  /// Help for one command or group, or for the whole tool when `path` is nil.
  static func help(for path: CommandPath?, in commands: [CommandSpec]) -> String {
    guard let path else { return toolHelp(commands) }
    let command = path.command
    var lines = usageLines(path.usageParts) + [""]
    lines += TextWrap.wrap(capitalised(command.summary) + ".")
    for paragraph in paragraphs(command.discussion) {
      lines += [""] + TextWrap.wrap(paragraph)
    }
    if command.isGroup {
      lines += ["", "Commands:"]
      for sub in command.visibleSubcommands {
        lines += TextWrap.definition(sub.name, sub.summary, column: 20)
      }
      lines += ["", "Run `accounts \(path.name) COMMAND --help` for a command's options."]
      return lines.joined(separator: "\n") + "\n"
    }
    if !command.arguments.isEmpty {
      lines += ["", "Arguments:"]
      for argument in command.arguments {
        lines += TextWrap.definition(argument.name, argument.help, column: 24)
      }
    }
    if !command.options.isEmpty {
      lines += ["", "Options:"]
      for option in command.options { lines += TextWrap.definition(option.spelling, option.help, column: 24) }
    }
    lines += ["", "Global options:"]
    for option in GlobalOptions.all { lines += TextWrap.definition(option.spelling, option.help, column: 24) }
    if !command.examples.isEmpty {
      lines += ["", "Examples:"]
      for (commandLine, meaning) in command.examples {
        lines += TextWrap.commandLine(commandLine, indent: 2) + TextWrap.wrap(meaning, indent: 6)
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private static func toolHelp(_ commands: [CommandSpec]) -> String {
    var lines = ["accounts: \(Documentation.tagline)", "", "Usage: accounts [COMMAND] [OPTIONS]", ""]
    lines += TextWrap.wrap(paragraphs(Documentation.overview)[0])
    lines += ["", "Commands:"]
    for command in commands where !command.hidden {
      lines += TextWrap.definition(command.name, command.summary, column: 20)
      for sub in command.visibleSubcommands {
        lines += TextWrap.definition("  \(sub.name)", sub.summary, column: 20)
      }
    }
    lines += ["", "Global options:"]
    for option in GlobalOptions.all { lines += TextWrap.definition(option.spelling, option.help, column: 20) }
    lines += ["", "Exit status:"]
    for status in ExitStatus.allCases {
      lines += TextWrap.definition(String(status.rawValue), status.meaning, column: 8)
    }
    lines += ["", "Run `accounts help COMMAND` for a command's options; `man accounts` for more."]
    return lines.joined(separator: "\n") + "\n"
  }

  /// Paragraphs are separated by blank lines in the table's multi-line strings.
  package static func paragraphs(_ text: String) -> [String] {
    var paragraphs: [[Substring]] = [[]]
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.isEmpty {
        if !paragraphs[paragraphs.count - 1].isEmpty { paragraphs.append([]) }
      } else {
        paragraphs[paragraphs.count - 1].append(line)
      }
    }
    return paragraphs.map { $0.joined(separator: " ") }.filter { !$0.isEmpty }
  }

  package static func capitalised(_ text: String) -> String {
    text.prefix(1).uppercased() + text.dropFirst()
  }

  /// "Usage: accounts ..." in lines of at most 80 columns, continued under the command.
  static func usageLines(_ parts: [String]) -> [String] {
    var lines: [String] = []
    var line = "Usage:"
    for part in parts {
      if line.count + 1 + part.count > 80, line.count > 7 {
        lines.append(line)
        line = String(repeating: " ", count: 6)
      }
      line += " " + part
    }
    return lines + [line]
  }
}
