/// The one schema every item of accounts is stored under (SPEC §2), for both clients: the bare
/// session-bus one in this module and libsecret's (`SecretService`, which builds its C schema
/// from `name` and `attributeNames`). Attributes are pairs in the order they are written.
public enum SecretSchema {
  /// The schema's name, stored with each item as `xdg:schema` and matched on every search.
  public static let name = "io.accounts.Secret"

  /// The attribute that holds the schema's name: what libsecret adds to a search by schema, and
  /// what a search over the bare bus adds itself.
  public static let nameAttribute = ("xdg:schema", name)

  /// Every attribute an item of the schema may carry: those of a password item with a URL,
  /// which has the most (`storedAttributes`).
  public static let attributeNames = storedAttributes(backend: "", account: "", kind: "password", url: "").map(\.0)

  /// The attributes of every item of one account (or, with account "", of a backend's
  /// settings): what `deleteAll` and `kinds` match.
  public static func attributes(backend: String, account: String) -> [(String, String)] {
    [("backend", backend), ("account", account)]
  }

  /// The attributes of every item of one kind, whatever its account: what `lookupAll` matches.
  public static func attributes(kind: String) -> [(String, String)] {
    [("kind", kind)]
  }

  /// What an item's attributes say it is for: its backend, account and kind; nil when one of
  /// them is missing.
  public static func names(in attributes: [String: String]) -> (backend: String, account: String, kind: String)? {
    guard let backend = attributes["backend"], let account = attributes["account"], let kind = attributes["kind"] else {
      return nil
    }
    return (backend, account, kind)
  }

  /// The attributes that name one item: what every lookup, replace and delete matches.
  public static func attributes(backend: String, account: String, kind: String) -> [(String, String)] {
    attributes(backend: backend, account: account) + [("kind", kind)]
  }

  /// What every store writes: `attributes` and, on a password item, `service=accounts:BACKEND`
  /// and `username=USER`, by which python keyring and other tools find a password
  /// (`secret-tool lookup service accounts:corp username alice`), and `UserName=USER` and
  /// `URL=url` (when there is one), KeePassXC's own fields: its entry shows them and its
  /// browser integration matches sites by the URL. No lookup matches these: every one matches
  /// `attributes`, so items stored before they were written are still found.
  public static func storedAttributes(backend: String, account: String, kind: String, url: String?) -> [(String, String)] {
    let named = attributes(backend: backend, account: account, kind: kind)
    guard kind == "password" else { return named }
    return named + [("service", "accounts:\(backend)"), ("username", account), ("UserName", account)]
      + (url.map { [("URL", $0)] } ?? [])
  }

  /// A search for the items of the schema with `attributes` (the schema's name first), as a
  /// D-Bus `a{ss}`.
  static func query(_ attributes: [(String, String)]) -> DBusMessage.Value {
    .array(element: "{ss}", ([nameAttribute] + attributes).map { .dictionaryEntry(.string($0.0), .string($0.1)) })
  }
}
