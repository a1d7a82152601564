/// The man page's CONFIGURATION and JSON CONTRACT sections: where the files are described and
/// what scripts may rely on in --json output.
import AccountsCLI

extension Documentation {
  /// CONFIGURATION: where the files are described (accounts-config(5), ConfigManual).
  static let configuration = [
    """
    config.json ($XDG_CONFIG_HOME/accounts/config.json: the backends with their settings, \
    directory rules, hooks) and the index ($XDG_STATE_HOME/accounts/accounts.json: the saved \
    accounts, the auto-login slot, token expiry times) are JSON files written by accounts, \
    neither holding a secret. accounts-config(5) describes them key by key, with an example; \
    change them with accounts' own commands.
    """
  ]

  /// JSON CONTRACT: what --json promises to scripts.
  static let jsonContract = [
    """
    Every command's --json output (list, current, status, which, login, switch, add, tag, \
    backend list and show, adapters, leases, lease, rules, hooks, import, doctor and the \
    others that take it) is an interface for scripts: keys are only ever added, never renamed \
    or removed, and a key keeps its type. Read the keys you need and ignore the others.
    """,
    """
    Types: strings, booleans, numbers (integers: counts, seconds, fences), arrays and objects; \
    times are UTC strings in RFC 3339 form (2026-11-23T07:00:00Z). A key that has no value \
    now is present with an explicit null (e.g. "last_login": null, "expires_at": null), \
    never left out, so a script can tell "none" from an older accounts that lacks the key. \
    Accounts are named "account": "USER@BACKEND" with "user" and "backend" beside it. \
    Secrets appear in --json output only where the command exists to print one: password, \
    token, and export --with-passwords.
    """,
  ]
}
