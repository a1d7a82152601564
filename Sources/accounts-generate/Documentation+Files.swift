/// The man page's CONFIGURATION and JSON CONTRACT sections: what the files hold and what
/// scripts may rely on in --json output.
import AccountsCLI

extension Documentation {
  /// CONFIGURATION: config.json and the index, key by key (ConfigFormat, IndexFormat).
  static let configuration = [
    """
    Both files are JSON objects written by accounts (atomically, with a lock and a .bak copy); \
    edit them only with accounts' own commands. Neither holds a secret. Keys accounts does not \
    know are kept when it writes, and each optional key is written only when it has a value, \
    so an older accounts keeps reading a newer file.
    """,
    """
    config.json ($XDG_CONFIG_HOME/accounts/config.json): "version" (number, 1); "backends" \
    (object: backend name to an object with "adapter" (string), "settings" (object of string \
    values: base_url and the adapter's other non-secret settings, see `accounts adapters \
    NAME`) and "secret_settings" (array of the names of the settings kept in the keyring)); \
    "rules" (optional object: a physical absolute directory to USER@BACKEND, see `accounts \
    rule add`); "hooks" (optional array of objects with "event" (switch, login or logout), \
    "command" (string), "timeout" (number of seconds), "with_token" (boolean) and at most one \
    of "backend" and "account" (strings)); "secret_service" (optional string: the Secret \
    Service that keeps the secrets, e.g. gnome-keyring or keepassxc); "unsettled" (optional \
    array of strings: what a command did not finish settling with the keyring, settled by the \
    next one).
    """,
    """
    The index ($XDG_STATE_HOME/accounts/accounts.json): "version" (number, 1); "auto_login" \
    and "previous_auto_login" (USER@BACKEND, or null); "accounts" (array of objects with \
    "user" and "backend" (strings), "remembered" (boolean: a password is in the keyring), \
    "added_at" (UTC time, RFC 3339), "last_login" (UTC time or null), "token" (null, or an \
    object with "expires_at": UTC time or null), "session" (object: the non-secret data the \
    backend returned, e.g. userId), "tags" (optional array of strings) and "otp" (optional, \
    true: a TOTP seed is in the keyring)); "secret_service" and "unsettled" as in config.json.
    """,
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
