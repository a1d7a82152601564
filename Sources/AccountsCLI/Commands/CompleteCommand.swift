import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem

/// `accounts __complete KIND [-- PREFIX]`: the names the completion scripts offer, one per
/// line; with PREFIX only those that start with it, byte for byte, so that a shell never loops
/// over thousands of names. Reads only the index and the config: never D-Bus, never the
/// network (see bench/list for its speed); `settings` alone loads an adapter, in a child
/// process, bounded. Only names that could have been saved are printed
/// (see `Names`; the index and config are refused when they hold another), and the scripts
/// drop any other line too.
enum CompleteCommand {
  static let spec = CommandSpec(
    "__complete",
    summary: "print completion candidates (used by the completion scripts)",
    arguments: [kind, prefix], options: [account], hidden: true,
    handler: run)

  static let kind = ArgumentSpec("KIND", help: "accounts, backends, adapters, settings (of --backend), commands or tags")
  static let account = OptionSpec(
    "account", value: "USER", help: "with tags: only the tags of this account (none when it names none)")
  static let prefix = ArgumentSpec(
    "PREFIX", optional: true, help: "print only the names that start with PREFIX (after --: it may start with '-')")

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
    case "settings":
      names = settings(invocation, environment)
    case "tags":
      names = try tags(invocation, environment)
    case "commands":
      names = CommandTable.all.filter { !$0.hidden }.map(\.name)
    default:
      names = []
    }
    let typed = invocation.argument(prefix) ?? ""
    names = names.filter { $0.utf8.starts(with: typed.utf8) && Names.isValidUser($0) }
    environment.output.write(names.isEmpty ? "" : names.joined(separator: "\n") + "\n")
  }

  /// The settings `backend set` takes as KEY=VALUE on backend `--backend`: its adapter's
  /// settings that are not secret (those go through --secret), and accounts' own. The adapter
  /// is the one thing completion loads, and only here: its descriptor is known only by loading
  /// it, in a child process (AdapterProbe, as `accounts adapters NAME`) bounded by
  /// `settingsLoadSeconds`, so that a broken or slow adapter costs TAB at most that and offers
  /// nothing. The scripts add the '='.
  private static func settings(_ invocation: Invocation, _ environment: Environment) -> [String] {
    guard let name = invocation.backend, let backend = try? environment.config.load().backend(named: name) else {
      return []
    }
    let timeout = min((try? environment.adapterLoadTimeout()) ?? settingsLoadSeconds, settingsLoadSeconds)
    guard
      let description = try? AdapterProbe(timeout: timeout).describe(backend.adapter, in: environment.adapterSearchPath)
    else { return [] }
    return description.settings.filter { !$0.isSecret }.map(\.name) + OwnBackendSetting.all
  }

  static let settingsLoadSeconds = 2.0

  /// Every tag of the accounts (on `--backend`), or those of the account `--account` names.
  private static func tags(_ invocation: Invocation, _ environment: Environment) throws -> [String] {
    let book = try environment.index.load()
    guard invocation.isSet(account) else {
      var tags = Set<String>()
      for entry in book.accounts where invocation.backend == nil || entry.id.backend == invocation.backend {
        tags.formUnion(entry.tags)
      }
      return Tags.normalised(Array(tags))
    }
    // A word being typed may name no account yet, or several: then there is nothing to offer.
    guard let query = invocation.value(account), !query.isEmpty,
      let id = try? book.resolve(query, backend: invocation.backend)
    else { return [] }
    return book[id]?.tags ?? []
  }
}
