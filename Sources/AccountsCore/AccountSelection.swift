import AccountsContract
import AccountsSystem

/// Which saved accounts a command that takes many acts on: the named ones, resolved as every
/// USER is; else those with every tag; else (where the command allows it) every one; narrowed
/// to one backend. One rule for `list`, `export`, `login --stale` and `lease`.
public struct AccountSelection: Sendable {
  public let names: [String]
  /// Checked: each a valid tag.
  public let tags: [String]
  public let backend: String?

  /// The selection given; a tag that is no tag is a usage error (before anything is read).
  public init(names: [String] = [], tags: [String] = [], backend: String? = nil) throws(CommandError) {
    for tag in tags { try Tags.check(tag) }
    self.names = names
    self.tags = tags
    self.backend = backend
  }

  /// Every account with each tag (none: every account) on the backend, in the index's order. A
  /// backend that is neither any account's nor configured is named ("did you mean").
  /// `configuration` is read only then (`list` reads the index alone).
  public func tagged(in book: AccountBook, configuration: () throws -> Configuration) throws -> [Account] {
    var accounts = book.accounts
    if let backend {
      accounts = accounts.filter { $0.id.backend == backend }
      if accounts.isEmpty { _ = try configuration().backend(named: backend) }
    }
    return tags.isEmpty ? accounts : accounts.filter { $0.hasTags(tags) }
  }

  /// The named accounts, each once in the order named, else those `tagged` (some must be,
  /// when tags are given); `everyAccount`: with neither, every account, else a usage error
  /// asking for one of them. Names and tags together are refused. `command` and `trailing`
  /// spell the command's examples in those errors.
  public func ids(
    in book: AccountBook, configuration: Configuration, everyAccount: Bool, command: String, trailing: String = ""
  ) throws -> [AccountID] {
    let examples = "e.g. `accounts \(command) --tag qa\(trailing)` or `accounts \(command) qa1 qa2\(trailing)`"
    guard names.isEmpty || tags.isEmpty else {
      throw CommandError.usage("name the accounts or give --tag, not both", fix: examples)
    }
    if !names.isEmpty {
      var ids: [AccountID] = []
      for name in names {
        let id = try book.resolve(name, backend: backend, configuration: { configuration })
        if !ids.contains(id) { ids.append(id) }
      }
      return ids
    }
    guard everyAccount || !tags.isEmpty else {
      throw CommandError.usage("\(command) from which accounts?", fix: examples)
    }
    let accounts = try tagged(in: book, configuration: { configuration })
    guard !accounts.isEmpty || tags.isEmpty else {
      throw CommandError(
        .loginRequired, "no saved account has the tag\(tags.count == 1 ? "" : "s") \(tags.joined(separator: ", "))",
        fix: "tag some with `accounts tag USER \(tags[0])`")
    }
    return accounts.map(\.id)
  }
}

extension AccountBook {
  /// The saved account `query` names (`resolve`), on `backend`: a backend neither any account's
  /// nor configured is named first ("no backend 'crop'; did you mean 'corp'?").
  /// `configuration` is read only then.
  public func resolve(
    _ query: String, backend: String?, configuration: () throws -> Configuration, allowPrefix: Bool = true
  ) throws -> AccountID {
    if let backend, !accounts.contains(where: { $0.id.backend == backend }) {
      _ = try configuration().backend(named: backend)
    }
    return try resolve(query, backend: backend, allowPrefix: allowPrefix)
  }
}
