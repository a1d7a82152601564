import AccountsCore
import AccountsSystem

/// `accounts __complete KIND [-- PREFIX]`: the names the completion scripts offer, one per
/// line; with PREFIX only those that start with it, byte for byte, so that a shell never loops
/// over thousands of names. Reads only the index and the config: never D-Bus, never the
/// network (see bench/list for its speed). Only names that could have been saved are printed
/// (see `Names`; the index and config are refused when they hold another), and the scripts
/// drop any other line too.
enum CompleteCommand {
  static let kind = ArgumentSpec("KIND", help: "accounts, backends, adapters or commands")
  static let prefix = ArgumentSpec(
    "PREFIX", optional: true, help: "print only the names that start with PREFIX (after --: it may start with '-')")

  static let spec = CommandSpec(
    "__complete",
    summary: "print completion candidates (used by the completion scripts)",
    arguments: [kind, prefix], hidden: true,
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
      names = environment.adapterSearchPath.files().filter { seen.insert($0.name).inserted }
        .filter { file in
          guard case .success(let checked) = LoadableFile.open(file.path) else { return false }
          checked.descriptor.close()
          return true
        }
        .map(\.name)
    case "commands":
      names = CommandTable.all.filter { !$0.hidden }.map(\.name)
    default:
      names = []
    }
    let typed = invocation.argument(prefix) ?? ""
    names = names.filter { $0.utf8.starts(with: typed.utf8) && Names.isValidUser($0) }
    environment.output.write(names.isEmpty ? "" : names.joined(separator: "\n") + "\n")
  }
}
