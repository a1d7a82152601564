import AccountsContract

/// The CSV files `accounts import` reads, told apart by their header rows: accounts' own and
/// the exports of KeePassXC, Bitwarden, LastPass, 1Password, Chrome and Firefox. Column names are
/// compared without case and without the spaces around them; a column a format does not use is
/// ignored, except in accounts' own format, where it is refused (a misspelt `tag` would drop
/// every tag), and except a column that looks like one-time-code seeds, which would be lost.
public enum ImportFormat: CaseIterable, Sendable {
  /// `account,password,backend,tags,otp`: `account` is `user` or `user@backend`, `tags`
  /// space-separated, `otp` an `otpauth://` URI or a base32 seed. Only `account` is required.
  case accounts
  /// KeePassXC's "Export to CSV" (2.7; 2.6 wrote only the first six columns).
  case keePassXC
  /// Bitwarden's CSV export of a personal vault (an organisation's has `collections` for
  /// `folder`): logins and secure notes.
  case bitwarden
  /// LastPass's "Export" (`totp` a base32 seed; secure notes have the URL `http://sn`). Before
  /// Chrome, whose columns it has too.
  case lastPass
  /// 1Password 8's CSV export (`OTPAuth` an otpauth:// URI).
  case onePassword
  /// Chrome's "Export passwords" (before version 115 without `note`).
  case chrome
  /// Firefox's "Export Logins" from about:logins.
  case firefox

  /// The name people know the format by.
  public var name: String {
    switch self {
    case .accounts: "accounts"
    case .keePassXC: "KeePassXC"
    case .bitwarden: "Bitwarden"
    case .lastPass: "LastPass"
    case .onePassword: "1Password"
    case .chrome: "Chrome"
    case .firefox: "Firefox"
    }
  }

  /// The header row of the format's files, for messages and the manual.
  public var headerRow: String {
    switch self {
    case .accounts: "account,password,backend,tags,otp"
    case .keePassXC: "Group,Title,Username,Password,URL,Notes,TOTP,Icon,Last Modified,Created"
    case .bitwarden:
      "folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp"
    case .lastPass: "url,username,password,totp,extra,name,grouping,fav"
    case .onePassword: "Title,Url,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes"
    case .chrome: "name,url,username,password,note"
    case .firefox:
      "url,username,password,httpRealm,formActionOrigin,guid,timeCreated,timeLastUsed,timePasswordChanged"
    }
  }

  /// The columns (in lower case) a header must have to be this format's: between them they tell
  /// the formats apart, and they include every column an account needs.
  var signature: [String] {
    switch self {
    case .accounts: ["account"]
    case .keePassXC: ["group", "title", "username", "password"]
    case .bitwarden: ["type", "login_username", "login_password"]
    case .lastPass: ["url", "username", "password", "extra", "name", "grouping"]
    case .onePassword: ["title", "url", "username", "password", "otpauth"]
    case .chrome: ["name", "url", "username", "password"]
    case .firefox: ["url", "username", "password", "httprealm", "formactionorigin"]
    }
  }

  var userColumn: String {
    switch self {
    case .accounts: "account"
    case .bitwarden: "login_username"
    case .keePassXC, .lastPass, .onePassword, .chrome, .firefox: "username"
    }
  }

  var passwordColumn: String { self == .bitwarden ? "login_password" : "password" }

  var otpColumn: String? {
    switch self {
    case .accounts: "otp"
    case .keePassXC: "totp"
    case .bitwarden: "login_totp"
    case .lastPass: "totp"
    case .onePassword: "otpauth"
    case .chrome, .firefox: nil
    }
  }

  /// The column of the site's URL, whose host may name the row's backend.
  var urlColumn: String? {
    switch self {
    case .accounts: nil
    case .bitwarden: "login_uri"
    case .keePassXC, .lastPass, .onePassword, .chrome, .firefox: "url"
    }
  }

  /// Whether the format takes anything from the column `key` (in lower case).
  func reads(_ key: String) -> Bool {
    switch self {
    case .accounts: ImportColumns.accountsColumns.contains(key)
    case .keePassXC: ["group", "username", "password", "totp"].contains(key)
    case .bitwarden: ["type", "login_username", "login_password", "login_totp", "login_uri"].contains(key)
    case .lastPass: ["url", "username", "password", "totp"].contains(key)
    case .onePassword: ["url", "username", "password", "otpauth", "archived"].contains(key)
    case .chrome, .firefox: ["url", "username", "password"].contains(key)
    }
  }

  /// Whether a column named `name` looks like it holds one-time-code seeds: `totp`, `OTPAuth`,
  /// `2FA`, `one-time code`, `2-step verification`, `security code`, `seed`, `secret`... in any
  /// case, fullwidth letters as their ASCII ones. A format that does not read such a column
  /// would drop the seeds without a word, so the file is refused instead.
  static func looksLikeOneTimeCodes(_ name: String) -> Bool {
    let compact = Array(
      String(String.UnicodeScalarView(name.unicodeScalars.map(asciiForm))).lowercased()
        .filter { $0.isLetter || $0.isNumber }.utf8)
    let holds = { (word: String) in
      let part = Array(word.utf8)
      return compact.count >= part.count
        && (0...(compact.count - part.count)).contains { compact[$0..<$0 + part.count].elementsEqual(part) }
    }
    let words = [
      "totp", "hotp", "otpauth", "2fa", "onetime", "twofactor", "authenticator", "2step", "twostep",
      "verificationcode", "authenticationcode", "securitycode", "seed", "secret", "authkey",
    ]
    return words.contains(where: holds)
      || ["otp", "mfa"].contains { compact.starts(with: $0.utf8) || compact.reversed().starts(with: $0.utf8.reversed()) }
  }

  /// The ASCII character a fullwidth form (U+FF01 to U+FF5E, and the ideographic space) stands
  /// for, as Unicode's compatibility (NFKC) mapping gives it; any other scalar as it is.
  private static func asciiForm(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    switch scalar.value {
    case 0xFF01...0xFF5E: Unicode.Scalar(scalar.value - 0xFEE0)!
    case 0x3000: " "
    default: scalar
    }
  }

  /// Whether a field of a column the format does not read holds an `otpauth://` URI (in any
  /// case, after blanks): a seed that importing would drop.
  static func holdsOneTimeCodeURI(_ field: [UInt8]) -> Bool {
    let value = field.drop { $0 == 0x20 || $0 == 0x09 }
    let scheme = Array("otpauth://".utf8)
    return value.count >= scheme.count
      && zip(value.prefix(scheme.count), scheme).allSatisfy { ((0x41...0x5A).contains($0) ? $0 + 0x20 : $0) == $1 }
  }

  /// The format of a file whose first line is `header`, or nil when it is none of them. The
  /// first format in `allCases` whose signature the header has wins.
  public static func detect(header: [String]) -> ImportFormat? {
    detect(keys: header.map { ImportColumns.key(Array($0.utf8)) })
  }

  static func detect(keys: [String?]) -> ImportFormat? {
    let present = Set(keys.compactMap { $0 })
    return allCases.first { $0.signature.allSatisfy(present.contains) }
  }
}

/// Where a file's columns are: found once from its header, used for every row.
struct ImportColumns {
  let format: ImportFormat
  /// The header's names as written (without surrounding spaces), for messages.
  let names: [String]
  let user: Int
  let password: Int?
  let otp: Int?
  /// accounts' own format.
  let backend: Int?
  let tags: Int?
  /// Bitwarden: `login` or `note`.
  let type: Int?
  /// KeePassXC: the group's path, `Root/QA`.
  let group: Int?
  /// The site's URL (every password manager's format).
  let url: Int?
  /// 1Password: `true` for an archived item.
  let archived: Int?

  /// The columns of `header` (the first line's fields), or nil when it is no format's. Throws
  /// for a header of accounts' own format with a column it does not know, and for a column it
  /// reads named twice. Makes no text of a field before the header is known to be one: without
  /// a header, the first line is an account and may hold its password.
  init?(header: [[UInt8]]) throws(ImportError) {
    let keys = header.map(Self.key)
    guard let format = ImportFormat.detect(keys: keys) else { return nil }
    var seen: Set<String> = []
    for (position, key) in keys.enumerated() {
      if format == .accounts, !Self.accountsColumns.contains(key ?? "") { throw .unknownColumn(position: position + 1) }
      if let key, format.reads(key), !seen.insert(key).inserted { throw .duplicateColumn(name: key) }
      let name = Self.trimmed(String(decoding: header[position], as: UTF8.self))
      if key == nil || key != format.otpColumn, ImportFormat.looksLikeOneTimeCodes(name) {
        throw .unreadOneTimeCodes(column: Names.printable(name, limit: 40), line: nil, format: format)
      }
    }
    func column(_ key: String?) -> Int? { key.flatMap { keys.firstIndex(of: $0) } }
    self.format = format
    names = header.map { Names.printable(Self.trimmed(String(decoding: $0, as: UTF8.self)), limit: 40) }
    user = column(format.userColumn)!  // in the signature
    password = column(format.passwordColumn)
    otp = column(format.otpColumn)
    backend = format == .accounts ? column("backend") : nil
    tags = format == .accounts ? column("tags") : nil
    type = format == .bitwarden ? column("type") : nil
    group = format == .keePassXC ? column("group") : nil
    url = column(format.urlColumn)
    archived = format == .onePassword ? column("archived") : nil
    unread = keys.indices.filter { keys[$0].map { !format.reads($0) } ?? true }
  }

  /// The columns the format takes nothing from: an `otpauth://` URI in one refuses the file.
  let unread: [Int]

  static let accountsColumns: Set = ["account", "password", "backend", "tags", "otp"]

  /// Every column some format looks at.
  private static let knownColumns = Array(
    accountsColumns.union(
      ImportFormat.allCases.flatMap { format in
        format.signature + [format.userColumn, format.passwordColumn]
          + [format.otpColumn, format.urlColumn].compactMap { $0 } + ["archived"]
      }))

  /// The known column `field` names (in lower case; without case and surrounding spaces and
  /// tabs), or nil for any other field.
  static func key(_ field: [UInt8]) -> String? {
    let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
    guard let first = field.firstIndex(where: { !blank($0) }), let last = field.lastIndex(where: { !blank($0) }) else {
      return nil
    }
    let name = field[first...last].lazy.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
    return knownColumns.first { $0.utf8.elementsEqual(name) }
  }

  static func trimmed(_ name: String) -> String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = name.firstIndex(where: { !blank($0) }), let last = name.lastIndex(where: { !blank($0) })
    else { return "" }
    return String(name[first...last])
  }
}
