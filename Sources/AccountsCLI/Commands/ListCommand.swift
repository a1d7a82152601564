import AccountsContract
import AccountsCore
import AccountsServices
import AccountsJSON
import AccountsSystem

/// `accounts` / `accounts list`: the QQ-style dropdown of every saved account.
enum ListCommand {
  static let spec = CommandSpec(
    "list", aliases: ["ls"],
    summary: "show every saved account (the default command)",
    discussion: """
      Shows each saved account with its backend, whether its password is remembered (and \
      +otp, or otp alone, when a one-time code seed is kept: `accounts otp`), its \
      token (valid until when, expired, or none) and its last login. The account in the \
      auto-login slot is marked with *. When any account shown has tags, a last column, \
      TAGS, lists them separated by commas (- for none). Reads only the index: no keyring, \
      no network.

      With --json: an array of objects with the keys account, user, backend, auto_login, \
      remembered, otp (a one-time code seed is kept), token ({"state": "valid"|"expired"|"none", "expires_at": ISO-8601 or \
      null}), last_login, tags (an array, [] for none) and lease (null, or {"lease", "holder", \
      "expires_at", "fence"} while a lease holds it; a LEASED column then shows the holder). \
      With --backend NAME: only that \
      backend's accounts. With --tag TAG: only accounts with that tag; with several, only \
      those with every one.

      With --names: each account's USER@BACKEND, one per line and nothing else, the form every \
      command takes, for fzf, xargs and shell loops (no lease store is read).
      """,
    options: [tag, names],
    examples: [
      ("accounts", "list every saved account"),
      ("accounts list --tag qa --tag smoke", "the accounts tagged both qa and smoke"),
      ("accounts list --names --tag qa | xargs -n1 accounts logout", "log out every account tagged qa"),
      ("accounts switch \"$(accounts list --names | fzf)\"", "pick an account with fzf"),
    ],
    handler: run)

  static let tag = SharedArguments.tag(help: "only accounts with this tag; repeated, only those with every one")
  static let names = OptionSpec("names", help: "print only USER@BACKEND of each account, one per line")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    if invocation.json && invocation.isSet(names) {
      throw CommandError.usage("--json and --names are two forms of the list", fix: "give one of them")
    }
    let selection = try AccountSelection(tags: invocation.values(tag), backend: invocation.backend)
    let book = try environment.index.load()
    let accounts = try selection.tagged(in: book, configuration: { try environment.config.load() })
    if invocation.isSet(names) {
      environment.output.writeText(accounts.map { $0.id.description + "\n" }.joined())
      return
    }
    let now = environment.now()
    let leases = leasesShown(accounts.map(\.id), environment, now: now)
    if invocation.json {
      environment.output.writeJSON(
        .array(accounts.map { AccountPresentation.json($0, in: book, now: now, lease: leases[$0.id]) }))
    } else if accounts.isEmpty {
      environment.output.message(
        !selection.tags.isEmpty
          ? "no saved account" + (invocation.backend.map { " on backend '\($0)'" } ?? "")
            + " has the tag\(selection.tags.count == 1 ? "" : "s") \(selection.tags.joined(separator: ", "))"
          : invocation.backend.map { "no saved accounts on backend '\($0)'" }
            ?? "no saved accounts yet; save one with `accounts add USER`")
    } else {
      environment.output.write(AccountPresentation.table(accounts, in: book, now: now, leases: leases))
    }
  }

  /// The live leases, by account. A store that cannot be read (or would need a password from
  /// the keyring: list never touches D-Bus) is said on stderr; the others and the list still
  /// show.
  static func leasesShown(_ accounts: [AccountID], _ environment: Environment, now: Timestamp) -> [AccountID: LeaseRecord] {
    func warn(_ error: any Error) {
      let text = (error as? any UserFacingError)?.explanation ?? "\(error)"
      environment.output.warning("leases not shown: \(text)")
    }
    do {
      return try environment.leaseStores(readsPasswords: false).leases(of: accounts, now: now, unread: warn)
    } catch {
      warn(error)
      return [:]
    }
  }
}
