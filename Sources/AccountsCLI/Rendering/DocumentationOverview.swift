/// The tool-level text that `--help` and the man page share. The man page's other prose is the
/// generator's (Sources/accounts-generate), so the accounts binary carries none of it.
package enum Documentation {
  package static let tagline = "remember every login, fill in passwords, switch accounts"

  /// The first paragraph of the man page's DESCRIPTION, which `accounts help` prints too.
  package static let overview =
    """
    accounts is an account switcher for the terminal, in the manner of the QQ messenger's \
    login window. It remembers every account you have saved, fills in remembered passwords, \
    keeps one account in an auto-login slot, and keeps every secret (passwords, tokens, secret backend settings) in the freedesktop Secret \
    Service (gnome-keyring, KeePassXC) through libsecret. Files hold no secrets.
    """
}
