import AccountsContract
import AccountsCore
import AccountsSystem

/// `accounts help [COMMAND...]`: the same text as `--help`.
enum HelpCommand {
  static let spec = CommandSpec(
    "help",
    summary: "show help for accounts or for one command",
    arguments: [command],
    handler: run)

  static let command = ArgumentSpec(
    "COMMAND", completion: .command, optional: true, variadic: true,
    help: "the command to explain, e.g. add or backend add")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let words = invocation.arguments(command)
    guard !words.isEmpty else {
      environment.output.write(HelpRenderer.help(for: nil, in: CommandTable.all))
      return
    }
    var path: CommandPath?
    var groups: [CommandSpec] = []
    var candidates = CommandTable.all
    for word in words {
      guard let found = candidates.first(where: { $0.name == word || $0.aliases.contains(word) })
      else {
        let names = candidates.filter { !$0.hidden }.map(\.name)
        let suggestions = Suggestions.closest(to: word, in: names)
        throw CommandError.usage(
          "unknown command '\(word)'",
          fix: suggestions.isEmpty
            ? "see `accounts help`" : "did you mean \(Suggestions.phrase(suggestions))?")
      }
      path = CommandPath(groups: groups, command: found)
      groups.append(found)
      candidates = found.subcommands
    }
    environment.output.write(HelpRenderer.help(for: path, in: CommandTable.all))
  }
}
