import AccountsJSON
import Glibc

/// The index, `$XDG_STATE_HOME/accounts/accounts.json`: every saved account without its secrets.
/// `list`, `current` and completion read only this file and never touch D-Bus.
public struct IndexStore: Sendable {
  public let file: DocumentFile

  public init(paths: Paths, stallMidWrite: Bool = false) {
    file = DocumentFile(path: paths.index, stallMidWrite: stallMidWrite)
  }

  /// The saved accounts; an empty book when the file does not exist yet. No lock is taken.
  public func load() throws -> AccountBook {
    try decode(file.read())
  }

  /// Changes the book under the writers' lock, re-reading it first so that no concurrent change
  /// is lost. The file is written only when the book changed.
  @discardableResult
  public func update<Result>(_ change: (inout AccountBook) throws -> Result) throws -> Result {
    try file.update { bytes in
      let old = try decode(bytes)
      var book = old
      let result = try change(&book)
      return (book == old ? nil : Array(IndexFormat.encode(book).utf8), result)
    }
  }

  private func decode(_ bytes: [UInt8]?) throws -> AccountBook {
    guard let bytes else { return AccountBook() }
    return try IndexFormat.decode(bytes, file: file)
  }
}

/// accounts.json, version 1:
///
///     {
///       "version": 1,
///       "auto_login": "alice@corp",          // or null
///       "previous_auto_login": null,
///       "accounts": [
///         { "user": "alice", "backend": "corp", "remembered": true,
///           "added_at": "2026-11-22T07:00:00Z", "last_login": null,
///           "token": { "expires_at": "2026-11-23T07:00:00Z" },   // or null: no token
///           "session": { "userId": "42" } }
///       ]
///     }
enum IndexFormat {
  static let version: Int64 = 1

  static func encode(_ book: AccountBook) -> String {
    var root = JSONObject()
    root["version"] = .number(JSONNumber(version))
    root["auto_login"] = book.autoLogin.map { .string($0.description) } ?? .null
    root["previous_auto_login"] = book.previousAutoLogin.map { .string($0.description) } ?? .null
    root["accounts"] = .array(book.accounts.map(encode))
    return JSON.serialize(.object(root), pretty: true) + "\n"
  }

  private static func encode(_ account: Account) -> JSONValue {
    var object = JSONObject()
    object["user"] = .string(account.id.user)
    object["backend"] = .string(account.id.backend)
    object["remembered"] = .bool(account.remembered)
    object["added_at"] = .string(account.addedAt.iso8601)
    object["last_login"] = account.lastLogin.map { .string($0.iso8601) } ?? .null
    object["token"] =
      account.token.map { token in
        .object(["expires_at": token.expiresAt.map { .string($0.iso8601) } ?? .null])
      } ?? .null
    var session = JSONObject()
    for key in account.session.keys.sorted() { session[key] = .string(account.session[key]!) }
    object["session"] = .object(session)
    return .object(object)
  }

  static func decode(_ bytes: [UInt8], file: DocumentFile) throws -> AccountBook {
    func malformed(_ detail: String) -> FileError {
      .malformed(
        path: file.path, detail: detail,
        backup: access(file.backupPath, R_OK) == 0 ? file.backupPath : nil)
    }
    let value: JSONValue
    do {
      value = try JSON.parse(bytes)
    } catch {
      throw malformed(error.description)
    }
    do {
      return try decode(JSONReader(value), path: file.path)
    } catch let error as JSONShapeError {
      throw malformed(error.description)
    } catch let error as AccountBookError {
      throw malformed(error.message)
    }
  }

  private static func decode(_ root: JSONReader, path: String) throws -> AccountBook {
    let version = try root.int64("version")
    if version > IndexFormat.version { throw FileError.newerFormat(path: path, version: version) }
    guard version == IndexFormat.version else {
      throw JSONShapeError(path: "version", problem: "expected 1, found \(version)")
    }
    let accounts = try root.array("accounts").map(decodeAccount)
    return try AccountBook(
      accounts: accounts,
      autoLogin: try accountID(root, "auto_login"),
      previousAutoLogin: try accountID(root, "previous_auto_login"))
  }

  private static func decodeAccount(_ object: JSONReader) throws -> Account {
    let user = try object.string("user")
    let backend = try object.string("backend")
    var session: [String: String] = [:]
    if let values = try object.optionalObject("session") {
      for (key, _) in try values.asObject() { session[key] = try values.string(key) }
    }
    return Account(
      id: AccountID(user: user, backend: backend),
      remembered: try object.bool("remembered"),
      token: try object.optionalObject("token").map { token in
        TokenRecord(expiresAt: try timestamp(token, "expires_at"))
      },
      lastLogin: try timestamp(object, "last_login"),
      addedAt: try timestamp(object, "added_at")
        ?? { throw JSONShapeError(path: join(object.path, "added_at"), problem: "missing") }(),
      session: session)
  }

  private static func timestamp(_ object: JSONReader, _ key: String) throws -> Timestamp? {
    guard let text = try object.optionalString(key) else { return nil }
    guard let time = Timestamp(iso8601: text) else {
      throw JSONShapeError(
        path: join(object.path, key), problem: "expected an ISO-8601 time, found \"\(text)\"")
    }
    return time
  }

  private static func accountID(_ object: JSONReader, _ key: String) throws -> AccountID? {
    guard let text = try object.optionalString(key) else { return nil }
    guard let at = text.lastIndex(of: "@"), at != text.startIndex,
      Names.isBackendName(String(text[text.index(after: at)...]))
    else {
      throw JSONShapeError(path: key, problem: "expected USER@BACKEND, found \"\(text)\"")
    }
    return AccountID(user: String(text[..<at]), backend: String(text[text.index(after: at)...]))
  }
}

func join(_ path: String, _ key: String) -> String {
  path.isEmpty ? key : "\(path).\(key)"
}
