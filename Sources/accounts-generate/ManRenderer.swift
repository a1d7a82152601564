import AccountsContract
import AccountsCLI
import AccountsCore
import AccountsSystem

/// man/accounts.1, from the command table. The header's date and version are VERSION's, so the
/// file changes only when the commands or the release do.
enum ManRenderer {
  static func accounts1(_ commands: [CommandSpec]) -> String {
    var out = [
      ".\\\" Generated from the command table by scripts/generate; do not edit.",
      ".TH ACCOUNTS 1 \"\(AccountsCommandLine.releaseDate)\" \"accounts \(AccountsCommandLine.version)\" \"User Commands\"",
      ".SH NAME",
      "accounts \\- \(escape(Documentation.tagline))",
      ".SH SYNOPSIS",
      ".B accounts",
      "[\\fICOMMAND\\fR] [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]",
      ".SH DESCRIPTION",
    ]
    out += paragraphs(Documentation.description)
    out.append(".SH NAMES")
    out += paragraphs(Documentation.names)
    out.append(".SH COMMANDS")
    for path in CommandTable.paths where !path.command.hidden {
      out += command(path)
    }
    out.append(".SH SESSIONS")
    out += paragraphs(Documentation.sessions)
    out.append(".SH GLOBAL OPTIONS")
    for option in GlobalOptions.all { out += optionItem(option) }
    out.append(".SH ENVIRONMENT")
    for (name, text) in Documentation.environment {
      out += [".TP", ".B \(escape(name))", escape(text)]
    }
    out.append(".SH FILES")
    for (name, text) in Documentation.files {
      out += [".TP", ".I \(escape(name))", escape(text)]
    }
    out.append(".SH CONFIGURATION")
    out += paragraphs(Documentation.configuration)
    out.append(".SH JSON CONTRACT")
    out += paragraphs(Documentation.jsonContract)
    out.append(".SH SAFETY")
    out += paragraphs(Documentation.safety)
    out.append(".SH SECURITY")
    out += paragraphs(Documentation.security)
    out.append(".SH KEEPASSXC")
    out += paragraphs(Documentation.keepassxc)
    out.append(".SH EXIT STATUS")
    for status in ExitStatus.allCases {
      out += [".TP", ".B \(status.rawValue)", escape(HelpRenderer.capitalised(status.meaning)) + "."]
    }
    out.append(".SH EXAMPLES")
    for path in CommandTable.paths where !path.command.hidden {
      for (commandLine, meaning) in path.command.examples {
        out += [".TP", ".B \(escape(commandLine))", escape(HelpRenderer.capitalised(meaning)) + "."]
      }
    }
    out.append(".SH SEE ALSO")
    out.append(Documentation.seeAlso.map { reference($0) }.joined(separator: ",\n"))
    return out.joined(separator: "\n") + "\n"
  }

  /// Paragraphs of running text, separated by .PP.
  private static func paragraphs(_ texts: [String]) -> [String] {
    var out: [String] = []
    for (index, paragraph) in texts.enumerated() {
      if index > 0 { out.append(".PP") }
      out.append(escape(HelpRenderer.paragraphs(paragraph).joined(separator: " ")))
    }
    return out
  }

  private static func command(_ path: CommandPath) -> [String] {
    let command = path.command
    var usage = ["\\fBaccounts \(escape(path.name))\\fR"]
    usage += command.arguments.map { "\\fI\(escape($0.usage))\\fR" }
    for option in command.options {
      let text = "\\fB\\-\\-\(escape(option.long))\\fR" + (option.valueName.map { " \\fI\(escape($0))\\fR" } ?? "")
      usage.append(option.required ? text : "[\(text)\(option.repeatable ? "..." : "")]")
    }
    var out = [".SS \"\(usage.joined(separator: " ").replacingOccurrences(of: "\"", with: "\\(dq"))\""]
    if !command.aliases.isEmpty {
      out.append("Also spelled \(command.aliases.map { "\\fB\(escape($0))\\fR" }.joined(separator: ", ")).")
      out.append(".PP")
    }
    out.append(escape(HelpRenderer.capitalised(command.summary)) + ".")
    for paragraph in HelpRenderer.paragraphs(command.discussion) {
      out += [".PP", escape(paragraph)]
    }
    for argument in command.arguments {
      out += [".TP", ".I \(escape(argument.name))", escape(argument.help)]
    }
    for option in command.options { out += optionItem(option) }
    return out
  }

  private static func optionItem(_ option: OptionSpec) -> [String] {
    var term = (option.short.map { "\\fB\\-\($0)\\fR, " } ?? "") + "\\fB\\-\\-\(escape(option.long))\\fR"
    if let value = option.valueName { term += " \\fI\(escape(value))\\fR" }
    return [".TP", term, escape(option.help)]
  }

  /// "secret-tool(1)" → ".BR secret-tool (1)"
  private static func reference(_ page: String) -> String {
    guard let open = page.firstIndex(of: "(") else { return escape(page) }
    return ".BR \(escape(String(page[..<open]))) \(page[open...])"
  }

  /// Escapes text for roff: backslashes, hyphens (as \-), and a leading dot or quote.
  static func escape(_ text: String) -> String {
    var escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
    return escaped
  }
}
