import AccountsCLI

/// man/accounts-config.5: the two files accounts keeps, key by key, with an example. The page is
/// data rendered by ManualPage; its date and version are VERSION's.
enum ConfigManual {
  typealias Block = ManualPage.Block

  static func roff(version: String = AccountsCommandLine.version, date: String = AccountsCommandLine.releaseDate) -> String {
    ManualPage(
      source: "ConfigManual.swift", title: "ACCOUNTS-CONFIG", section: 5, manual: "File Formats Manual",
      sections: [
        .init("NAME", [.roff(["accounts\\-config \\- the configuration and index files of accounts"])]),
        .init("SYNOPSIS", [
          .roff([
            ".nf",
            ".I $XDG_CONFIG_HOME/accounts/config.json",
            ".I $XDG_STATE_HOME/accounts/accounts.json",
            ".fi",
          ])
        ]),
        .init("DESCRIPTION", description),
        .init("CONFIGURATION", config),
        .init("BACKEND SETTINGS", settings),
        .init("THE INDEX", index),
        .init("EXAMPLE", example),
        .init("FILES", files),
        .init("SEE ALSO", [.text("accounts(1), accounts-adapter(7), secret-tool(1)")]),
      ]
    ).roff(version: version, date: date)
  }

  private static let description: [Block] = [
    .text("""
      accounts keeps two JSON files: config.json, what you set up (backends, directory rules, \
      hooks), and the index, what accounts records (saved accounts, the auto-login slot, when \
      tokens expire). Neither holds a secret: passwords, tokens, one-time code seeds and secret \
      backend settings are in the freedesktop Secret Service. Both are written by accounts \
      atomically, under a lock, with the previous version kept as a .bak copy; change them \
      with accounts' own commands (`accounts backend add`, `backend set`, `rule add`, `hook \
      add`, ...), which check what they write. Keys accounts does not know are kept when it \
      writes, and each optional key is written only when it has a value, so an older accounts \
      keeps reading a newer file. A file accounts cannot read is refused with its line and \
      column, never overwritten.
      """),
    .text("""
      `$XDG_CONFIG_HOME` defaults to ~/.config and `$XDG_STATE_HOME` to ~/.local/state. \
      config.json may be a symbolic link (a dotfiles repository): accounts writes through it.
      """),
  ]

  private static let config: [Block] = [
    .text("config.json, $XDG_CONFIG_HOME/accounts/config.json, is an object with these keys:"),
    .terms([
      ("`version`", "The format's version: 1."),
      ("`backends`", """
        An object: each backend's name (what USER@BACKEND names) to an object with \
        `adapter` (the adapter's name, see `accounts adapters`), `settings` (an object of \
        string values: see BACKEND SETTINGS) and `secret_settings` (an array of the names of \
        the settings whose values are in the keyring, e.g. `private_key`).
        """),
      ("`rules`", """
        Optional. An object: a physical absolute directory to the USER@BACKEND used in it and \
        below it (`accounts rule add DIR USER`; the longest matching directory wins).
        """),
      ("`hooks`", """
        Optional. An array of objects with `event` (switch, login or logout), `command` (a \
        string run by /bin/sh), `timeout` (seconds), `with_token` (boolean: the token in the \
        hook's environment) and at most one of `backend` and `account`, which limit the hook \
        to them (`accounts hook add`).
        """),
      ("`secret_service`", """
        Optional. The Secret Service that keeps the secrets of the backends' secret settings, \
        e.g. gnome-keyring-daemon or keepassxc (written by the first command that stores one): accounts refuses to read them from another one.
        """),
      ("`unsettled`", """
        Optional. What a command did not finish settling with the keyring (it was killed, or \
        the keyring failed); the next command settles it.
        """),
    ]),
  ]

  private static let settings: [Block] = [
    .text("""
      A backend's settings are those its adapter declares (`accounts adapters NAME` lists \
      them, with their defaults; the built-in adapters' are in accounts-adapter(7)) and \
      accounts' own, which every backend may have whatever its adapter. `accounts backend \
      set` checks each against the adapter before it writes.
      """),
    .terms([
      ("`base_url`", """
        The API's base URL. https:// is required; http:// only where the adapter allows it: \
        for the built-in plain adapter with `allow_insecure_transport=true`, meant for a test \
        server on your own machine (http://127.0.0.1:PORT/...), never for a real backend \
        (the password or token crosses the network in clear).
        """),
      ("`allow_insecure_transport`", """
        plain's setting (false by default): true lets it send a password over http://. Set it \
        only for a local test server.
        """),
      ("`git_host`", """
        accounts' own: the host `accounts git-credential` answers git for with this \
        backend's accounts, as git names it (git.corp.example, or HOST:PORT).
        """),
      ("`lease_store`", """
        accounts' own: where this backend's accounts are leased: local (the default: this \
        machine), or a shared Redis, redis://[USER@]HOST[:PORT][/DB] or unix:///PATH. \
        ACCOUNTS_LEASE_STORE applies to backends without one; naming another store than a \
        backend's own, it is refused for that backend (one pool, one store).
        """),
      ("`lease_prefix`", """
        accounts' own: the Redis key prefix of the backend's leases (accounts:lease:BACKEND \
        by default); backends of any name that share a prefix share one pool.
        """),
      ("`lease_store_password`", """
        accounts' own secret setting: the Redis password of `lease_store`, kept in the \
        keyring (`accounts backend set NAME --secret lease_store_password`).
        """),
    ]),
  ]

  private static let index: [Block] = [
    .text("""
      The index, $XDG_STATE_HOME/accounts/accounts.json, is accounts' record: read it (`accounts \
      list --json` is the stable way for scripts), never write it. An object with:
      """),
    .terms([
      ("`version`", "1."),
      ("`auto_login`, `previous_auto_login`", "USER@BACKEND, or null: the auto-login slot, and what `accounts switch -` goes back to."),
      ("`accounts`", """
        An array of objects with `user` and `backend` (strings); `remembered` (boolean: a \
        password is in the keyring); `added_at` (UTC time, RFC 3339); `last_login` (UTC time \
        or null); `token` (null, or an object with `expires_at`: a UTC time or null); \
        `session` (an object: the non-secret data the backend returned, e.g. userId); `tags` \
        (optional array of strings); `otp` (optional, true: a TOTP seed is in the keyring).
        """),
      ("`secret_service`, `unsettled`", "As in config.json."),
    ]),
  ]

  private static let example: [Block] = [
    .text("""
      A backend of the signed adapter, one of the plain adapter on a local test server, a \
      directory rule and a hook, as `accounts backend add`, `rule add` and `hook add` write them:
      """),
    .code("""
      {
        "version": 1,
        "backends": {
          "corp": {
            "adapter": "signed",
            "settings": {
              "base_url": "https://api.corp.example/api",
              "app_id": "170ib799dd511e7b66000163e033322",
              "ver": "1.0",
              "git_host": "git.corp.example"
            },
            "secret_settings": ["private_key"]
          },
          "local": {
            "adapter": "plain",
            "settings": {
              "base_url": "http://127.0.0.1:8080/plain/plain",
              "allow_insecure_transport": "true"
            },
            "secret_settings": []
          }
        },
        "secret_service": "gnome-keyring-daemon",
        "rules": { "/home/me/work/corp": "alice@corp" },
        "hooks": [
          { "event": "switch", "command": "notify-send \\"now $ACCOUNTS_ACCOUNT\\"", "with_token": false, "timeout": 5 }
        ]
      }
      """),
  ]

  private static let files: [Block] = [
    .terms([
      ("*$XDG_CONFIG_HOME/accounts/config.json*", "The configuration; config.json.lock its lock, config.json.bak the previous version."),
      ("*$XDG_STATE_HOME/accounts/accounts.json*", "The index; accounts.json.lock its lock, accounts.json.bak the previous version."),
    ])
  ]
}
