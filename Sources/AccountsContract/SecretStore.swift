import AccountsSystem
import SecretMemory
/// What a secret is for; stored as the item attribute `kind` (SPEC §2).
public enum SecretKind: Hashable, Sendable {
  case password
  case token
  /// The refresh token that renews the token without the password (OAuth 2.0), kept while
  /// the index claims it beside the token (`TokenRecord.refreshable`).
  case refreshToken
  /// The account's TOTP seed, as `OTPSeed.canonicalText` (an otpauth:// URI).
  case otp
  /// A secret backend setting such as `private_key`.
  case setting(String)

  /// The value of the `kind` attribute.
  public var attributeValue: String {
    switch self {
    case .password: "password"
    case .token: "token"
    case .refreshToken: "refresh_token"
    case .otp: "otp"
    case .setting(let name): "setting:\(name)"
    }
  }

  /// The kind an attribute value names; nil for values accounts does not write.
  public init?(attributeValue: String) {
    switch attributeValue {
    case "password": self = .password
    case "token": self = .token
    case "refresh_token": self = .refreshToken
    case "otp": self = .otp
    case let value where value.hasPrefix("setting:") && value.count > 8:
      self = .setting(String(value.dropFirst(8)))
    default: return nil
    }
  }
}

/// Names exactly one Secret Service item: every store writes the full attribute set
/// (`backend`, `account`, `kind`), so the service's replace semantics hit one item.
public struct SecretKey: Hashable, Sendable {
  public var backend: String
  /// The user name, or "" for a setting that belongs to the whole backend.
  public var account: String
  public var kind: SecretKind
  /// The web address a password item also carries (KeePassXC's URL: its entry shows it and
  /// its browser integration matches sites by it): the backend's base_url, set by the ledger
  /// when it stores a password. What a store writes besides the item's name, never part of
  /// it: keys that differ only here name the same item (`==` and `hash` leave it out).
  public var url: String?

  public static func == (left: SecretKey, right: SecretKey) -> Bool {
    left.backend == right.backend && left.account == right.account && left.kind == right.kind
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(backend)
    hasher.combine(account)
    hasher.combine(kind)
  }

  public init(backend: String, account: String, kind: SecretKind) {
    self.backend = backend
    self.account = account
    self.kind = kind
  }

  public init(_ id: AccountID, _ kind: SecretKind) {
    self.init(backend: id.backend, account: id.user, kind: kind)
  }

  /// A backend-wide secret setting.
  public static func setting(_ name: String, backend: String) -> SecretKey {
    SecretKey(backend: backend, account: "", kind: .setting(name))
  }

  /// The key an item's attributes name; nil when one of the schema's attributes is missing or
  /// its kind is not one accounts writes.
  public init?(attributes: [String: String]) {
    guard let names = SecretSchema.names(in: attributes), let kind = SecretKind(attributeValue: names.kind) else {
      return nil
    }
    self.init(backend: names.backend, account: names.account, kind: kind)
  }

  /// The attributes that name its item (`SecretSchema`): what every lookup, replace and
  /// delete matches.
  public var attributes: [(String, String)] {
    SecretSchema.attributes(backend: backend, account: account, kind: kind.attributeValue)
  }

  /// What every store writes (`SecretSchema`, SPEC §2): `attributes` and, on a password item,
  /// those by which other tools find and show a password (`service`, `username`, KeePassXC's
  /// `UserName` and, with `url`, `URL`).
  public var storedAttributes: [(String, String)] {
    SecretSchema.storedAttributes(backend: backend, account: account, kind: kind.attributeValue, url: url)
  }

  /// The label shown in Seahorse or KeePassXC, e.g. "accounts: alice@corp password".
  public var label: String {
    switch kind {
    case .password, .token, .refreshToken, .otp: "accounts: \(account)@\(backend) \(kind.attributeValue)"
    case .setting(let name) where account.isEmpty: "accounts: backend \(backend) \(name)"
    case .setting(let name): "accounts: \(account)@\(backend) \(name)"
    }
  }
}

/// What `accounts doctor` reports about the Secret Service.
public struct SecretServiceReport: Sendable, Equatable {
  /// The process that owns `org.freedesktop.secrets`, e.g. "gnome-keyring-daemon".
  public var provider: String?
  public var providerProcessID: Int32?
  /// The label of the collection accounts stores in (the `default` alias), nil when none exists.
  public var collection: String?
  public var collectionLocked: Bool?

  public init(
    provider: String?, providerProcessID: Int32?, collection: String?, collectionLocked: Bool?
  ) {
    self.provider = provider
    self.providerProcessID = providerProcessID
    self.collection = collection
    self.collectionLocked = collectionLocked
  }
}

/// The Secret Service as the domain sees it. Every method throws `SecretStoreError` and has a
/// deadline; none of them is called on the `list` or completion paths. A store may be called
/// from several threads (`status --jobs`) and makes one call at a time.
public protocol SecretStore: AnyObject {
  /// Stores or replaces the item named by `key`.
  func store(_ secret: SecretBytes, for key: SecretKey) throws
  /// The secret, or nil when no item matches. Throws `.locked` rather than answering nil when
  /// the collection is locked, so "locked" is never reported as "no password".
  func lookup(_ key: SecretKey) throws -> SecretBytes?
  /// Every item of `kind` that accounts stored (all backends, all accounts), by key, with the
  /// secrets read in one go: one search and one read of all secrets (Service.GetSecrets)
  /// instead of a lookup per key. A key without an item is absent; [:] means no item of `kind`.
  ///
  /// The rules of `lookup` hold for the whole answer: a locked collection throws `.locked`
  /// (with `mayPrompt`, the provider's prompt unlocks it first), never an answer that hides the
  /// locked items; items the provider has not granted access to (KeePassXC's confirmation) are
  /// asked for all together in one prompt, or throw `.accessNotGranted` without one; no
  /// collection throws `.noCollection`; each call runs under its deadline.
  func lookupAll(kind: SecretKind) throws -> [SecretKey: SecretBytes]
  /// The kinds of the items that exist for `account` on `backend` ("" for the backend's own
  /// settings), without reading a secret (and without an unlock prompt). Throws `.locked`
  /// rather than answering "none" when the collection is locked and the provider hides the
  /// items of locked collections.
  func kinds(backend: String, account: String) throws -> [SecretKind]
  /// The program that provides the Secret Service now ("gnome-keyring-daemon", "keepassxc");
  /// connects first. Nil when it cannot be told.
  func providerName() throws -> String?
  /// Deletes the item; an item that is already gone is success.
  func delete(_ key: SecretKey) throws
  /// Deletes every item of one account on one backend (password, token, account settings).
  func deleteAll(backend: String, account: String) throws
  /// Deletes every backend-wide item of `backend` (its secret settings).
  func deleteSettings(backend: String) throws
  /// Locks the collections that hold accounts' items and the default one, checks that each
  /// is locked, and returns their labels, the default one's first, one per line.
  func lock() throws -> String
  /// Provider and collection state for `accounts doctor`.
  func report() throws -> SecretServiceReport
}

/// Why the Secret Service could not do what was asked. Always exit status 7.
public enum SecretStoreError: UserFacingError, Equatable {
  /// No D-Bus session bus (unset or dead `DBUS_SESSION_BUS_ADDRESS`).
  case noSessionBus(detail: String)
  /// A bus, but nobody provides `org.freedesktop.secrets` on it.
  case noProvider(detail: String)
  /// The collection is locked; libsecret would otherwise answer "not found". `provider`: the
  /// program that keeps it, when known (the fix differs: Seahorse or KeePassXC).
  case locked(collection: String, provider: String? = nil)
  /// The call did not finish within the deadline (a hung daemon); `prompt`: the deadline was
  /// that of a prompt a person was to answer (ACCOUNTS_PROMPT_TIMEOUT).
  case timedOut(operation: String, seconds: Double, prompt: Bool = false)
  /// The call did not return even after it was cancelled at its deadline (libsecret never
  /// completes a call whose provider quit while its prompt was open): it was abandoned.
  /// `seconds` 0: the provider left the bus during the call, which was ended then.
  case stuck(operation: String, seconds: Double)
  /// The provider asks before a program reads an entry (KeePassXC's access confirmation),
  /// and nobody was there to allow it.
  case accessNotGranted(item: String, provider: String?)
  /// Nowhere to store: no default collection (KeePassXC exposes no group of its database).
  case noCollection(provider: String?)
  /// The secrets were stored by one provider and another answers now (KeePassXC is not
  /// running, and D-Bus started gnome-keyring in its place).
  case providerChanged(stored: String, current: String)
  /// The provider showed a prompt and the user dismissed it.
  case promptDismissed(operation: String)
  /// Anything else, with libsecret's or D-Bus's own words (never a secret).
  case failed(operation: String, detail: String)
  /// accounts' own Secret Service library (or libsecret under it) could not be loaded; `fix`
  /// is the refusal's own (nil: a dependency such as libsecret is missing).
  case supportMissing(detail: String, fix: String? = nil)

  public var status: ExitStatus { .secretStoreUnavailable }

  public var message: String {
    switch self {
    case .noSessionBus(let detail):
      "cannot reach the D-Bus session bus (\(detail))"
    case .noProvider(let detail):
      "no Secret Service on the session bus (\(detail))"
    case .locked(let collection, _):
      "the keyring collection '\(collection)' is locked"
    case .timedOut(let operation, let seconds, false):
      "the Secret Service did not answer (\(operation)) within \(DurationText.seconds(exactly: seconds))"
    case .timedOut(let operation, let seconds, true):
      "nobody answered the keyring's prompt (\(operation)) within \(DurationText.seconds(exactly: seconds))"
    case .stuck(let operation, 0):
      "the Secret Service never answered (\(operation)): the program behind it left the session bus during the call"
    case .stuck(let operation, let seconds):
      "the Secret Service never answered (\(operation)), not even after its deadline of \(DurationText.seconds(exactly: seconds)): the program behind it may have quit with its prompt open"
    case .accessNotGranted(let item, let provider):
      "\(Self.displayName(provider)) did not grant access to '\(item)'"
    case .noCollection(let provider) where provider == "keepassxc":
      "KeePassXC exposes no group of its database to the Secret Service"
    case .noCollection(let provider):
      "\(Self.displayName(provider)) has no default collection to keep secrets in"
    case .providerChanged(let stored, let current):
      "the remembered secrets are in \(Self.displayName(stored)), but \(Self.displayName(current)) provides the Secret Service now"
    case .promptDismissed(let operation):
      "the keyring prompt was dismissed (\(operation))"
    case .failed(let operation, let detail):
      "the Secret Service failed (\(operation)): \(detail)"
    case .supportMissing(let detail, _):
      "cannot load accounts' Secret Service support: \(detail)"
    }
  }

  public var fix: String? {
    switch self {
    case .noSessionBus:
      "run inside a desktop session, or on a server in `dbus-run-session -- bash` after `gnome-keyring-daemon --unlock --components=secrets` there"
    case .noProvider:
      "start gnome-keyring-daemon or KeePassXC's Secret Service integration, then retry"
    case .locked(_, let provider) where provider == "keepassxc":
      "unlock the database in KeePassXC, or run the command in a terminal of your desktop session to get KeePassXC's unlock prompt"
    case .locked:
      "unlock it in Seahorse, or run the command in a terminal of your desktop session to get the keyring's unlock prompt"
    case .timedOut(_, _, false):
      "check that the keyring daemon is running and not waiting on a prompt; ACCOUNTS_SECRET_TIMEOUT=SECONDS waits longer"
    case .timedOut(_, _, true):
      "answer the prompt on your desktop; ACCOUNTS_PROMPT_TIMEOUT=SECONDS waits longer"
    case .stuck:
      "check that the program that keeps your secrets (KeePassXC, gnome-keyring-daemon) is running, then try again"
    case .accessNotGranted(_, let provider) where provider == "keepassxc":
      "allow it in KeePassXC's prompt on your desktop, or let programs read entries without asking: KeePassXC, Tools, Settings, Secret Service Integration, clear \"Confirm when passwords are retrieved by clients\""
    case .accessNotGranted:
      "allow it in the keyring's prompt on your desktop"
    case .noCollection(let provider) where provider == "keepassxc":
      "in KeePassXC: Database, Database Settings, Secret Service Integration, expose a group (e.g. a new group \"accounts\"), then try again"
    case .noCollection:
      "create a keyring (Seahorse: File, New, Password Keyring) and make it the default, or start gnome-keyring-daemon with --unlock (see the README)"
    case .providerChanged(let stored, let current):
      "\(Self.startHint(stored, instead: current)) before running accounts; "
        + "to keep secrets in \(Self.displayName(current)) from now on, run the command again with ACCOUNTS_ADOPT_SECRET_SERVICE=1 "
        + "(what only \(Self.displayName(stored)) has is then forgotten)"
    case .promptDismissed:
      "run the command again and accept the keyring prompt"
    case .failed:
      "run `accounts doctor` for details"
    case .supportMissing(_, let fix?):
      fix
    case .supportMissing:
      "install libsecret (Debian: apt-get install libsecret-1-0), or reinstall accounts with `make install`"
    }
  }
}

extension SecretStoreError {
  /// "KeePassXC", "gnome-keyring" or "the Secret Service" for a provider's program name.
  static func displayName(_ provider: String?) -> String {
    switch provider {
    case "keepassxc"?: "KeePassXC"
    case "gnome-keyring-daemon"?: "gnome-keyring"
    case let name?: name
    case nil: "the Secret Service"
    }
  }

  /// How to get `provider` to answer again while `current` provides the Secret Service.
  static func startHint(_ provider: String, instead current: String) -> String {
    switch provider {
    case "keepassxc":
      return "start KeePassXC (its database open, its Secret Service integration on)"
    case "gnome-keyring-daemon":
      let first = current == "keepassxc" ? "turn off KeePassXC's Secret Service integration, then " : "stop \(displayName(current)), then "
      return first + "start gnome-keyring (log in to your desktop session, or run `gnome-keyring-daemon --start --components=secrets`)"
    default:
      return "stop \(displayName(current)) and start \(displayName(provider))"
    }
  }
}

