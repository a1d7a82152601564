import AccountsContract
import AccountsCore
import AccountsServices
import AccountsSystem

/// `accounts __complete KIND [-- PREFIX]`: the names the completion scripts offer, one per
/// line; with PREFIX only those that start with it, byte for byte, so that a shell never loops
/// over thousands of names. Reads only the index and the config: never D-Bus, never the
/// network (see bench/list for its speed); the kinds of settings alone load an adapter, in a
/// child process, bounded. Only names that could have been saved are printed
/// (see `Names`; the index and config are refused when they hold another), and the scripts
/// drop any other line too.
enum CompleteCommand {
  static let spec = CommandSpec(
    "__complete",
    summary: "print completion candidates (used by the completion scripts)",
    arguments: [kind, prefix], options: [account, adapter], hidden: true,
    handler: run)

  static let kind = ArgumentSpec(
    "KIND",
    help: "accounts, backends, adapters, settings or secret-settings (of --adapter, else of --backend's adapter), "
      + "unsettable-settings (of --backend), commands or tags")
  static let account = OptionSpec(
    "account", value: "USER", help: "with tags: only the tags of this account (none when it names none)")
  static let adapter = OptionSpec(
    "adapter", value: "ADAPTER",
    help: "with settings and secret-settings: those of this adapter (`backend add --adapter`), not of --backend's")
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
    case "settings", "secret-settings", "unsettable-settings":
      names = settings(invocation.argument(kind)!, invocation, environment)
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

  /// The setting names of one adapter's backends, as `backend add` and `backend set` take them
  /// (`BackendSettingsRequest`): `settings`, given as KEY=VALUE (the scripts add the '=');
  /// `secret-settings`, named by --secret; both of adapter `--adapter` (`backend add`, whose
  /// backend does not exist yet), else of backend `--backend`'s adapter. `unsettable-settings`:
  /// those backend `--backend` has that --unset may remove. The adapter is the one thing
  /// completion loads, and only here: its descriptor is known only by loading it, in a child
  /// process (AdapterProbe, as `accounts adapters NAME`) bounded by `settingsLoadSeconds`, so
  /// that a broken or slow adapter costs TAB at most that and offers nothing. A word that is
  /// no adapter name loads nothing.
  private static func settings(_ kind: String, _ invocation: Invocation, _ environment: Environment) -> [String] {
    let backend = invocation.backend.flatMap { try? environment.config.load().backend(named: $0) }
    let named = kind == "unsettable-settings" ? nil : invocation.value(adapter)
    guard let adapterName = named ?? backend?.adapter, Names.isBackendName(adapterName) else { return [] }
    let timeout = min((try? environment.adapterLoadTimeout()) ?? settingsLoadSeconds, settingsLoadSeconds)
    guard let description = try? AdapterProbe(timeout: timeout).describe(adapterName, in: environment.adapterSearchPath)
    else { return [] }
    switch kind {
    case "settings": return BackendSettingsRequest.settingsByValue(on: description)
    case "secret-settings": return BackendSettingsRequest.secretSettings(on: description)
    default: return backend.map { BackendSettingsRequest.unsettable(of: $0, adapter: description) } ?? []
    }
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
