import AccountsCore

/// `accounts __complete KIND`: the names the completion scripts offer, one per line. Reads only
/// the index and the config: never D-Bus, never the network (see bench/list for its speed).
/// Account and backend names that break the naming rules (a damaged or hand-edited file) are
/// left out, so a shell never sees them; the scripts drop such lines too.
enum CompleteCommand {
  static let kind = ArgumentSpec("KIND", help: "accounts, backends, adapters or commands")

  static let spec = CommandSpec(
    "__complete",
    summary: "print completion candidates (used by the completion scripts)",
    arguments: [kind], hidden: true,
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    var names: [String]
    switch invocation.argument(kind)! {
    case "accounts":
      let book = try environment.index.load()
      names = zip(book.accounts, book.shortestNames())
        .filter { invocation.backend == nil || $0.0.id.backend == invocation.backend }
        .filter { Names.isValidUser($0.0.id.user) && Names.isBackendName($0.0.id.backend) }
        .map(\.1)
    case "backends":
      names = try environment.config.load().backends.map(\.name).filter(Names.isBackendName)
    case "adapters":
      // File names only: completion never loads a library.
      var seen = Set<String>()
      names = environment.adapterSearchPath.files().map(\.name).filter { seen.insert($0).inserted }
    case "commands":
      names = CommandTable.all.filter { !$0.hidden }.map(\.name)
    default:
      names = []
    }
    environment.output.write(names.isEmpty ? "" : names.joined(separator: "\n") + "\n")
  }
}
