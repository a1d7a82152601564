import AccountsCore

/// `accounts __complete KIND`: the names the completion scripts offer, one per line. Reads only
/// the index and the config: never D-Bus, never the network (see bench/list for its speed).
/// Names that break the naming rules never get here: the index and config are refused when
/// they hold one (see `Names`), and the scripts drop such lines too.
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
        .map(\.1)
    case "backends":
      names = try environment.config.load().backends.map(\.name)
    case "adapters":
      // The names that would load: valid names whose first file passes the checks made
      // without loading it (path, owner, mode, ELF header). Completion never loads a library.
      var seen = Set<String>()
      let check = AdapterFileCheck()
      names = environment.adapterSearchPath.files().filter { seen.insert($0.name).inserted }
        .filter { file in
          guard case .success(let checked) = check.open(file.path) else { return false }
          checked.descriptor.close()
          return true
        }
        .map(\.name)
    case "commands":
      names = CommandTable.all.filter { !$0.hidden }.map(\.name)
    default:
      names = []
    }
    environment.output.write(names.isEmpty ? "" : names.joined(separator: "\n") + "\n")
  }
}
