import AccountsContract
import AccountsJSON
import AccountsSystem

/// The index, `$XDG_STATE_HOME/accounts/accounts.json`: every saved account without its secrets.
/// `list`, `current` and completion read only this file and never touch D-Bus.
public typealias IndexStore = DocumentStore<IndexFormat>

/// accounts.json, version 1:
///
///     {
///       "version": 1,
///       "auto_login": "alice@corp",          // or null
///       "previous_auto_login": null,
///       "accounts": [
///         { "user": "alice", "backend": "corp", "remembered": true,
///           "added_at": "2026-11-22T07:00:00Z", "last_login": null,
///           "token": { "expires_at": "2026-11-23T07:00:00Z",    // or null: no token
///                      "refresh": true },     // optional: a refresh token is stored beside it
///           "session": { "userId": "42" },
///           "tags": [ "qa", "smoke" ],       // optional: none when absent; sorted, each once
///           "otp": true }                    // optional: a TOTP seed is stored; only when true
///       ],
///       "unsettled": [ "bob@corp" ],         // optional: see AccountBook.unsettled
///       "secret_service": "keepassxc"        // optional: see AccountBook.secretService
///     }
///
/// Members this version does not know are kept, at every level that has them.
public enum IndexFormat: DocumentFormat {
  static let version: Int64 = 1
  public static func path(in paths: Paths) -> String { paths.index }
  static let rootKeys: Set<String> = ["version", "auto_login", "previous_auto_login", "accounts", "unsettled", "secret_service"]

  public static func emptyContent() -> AccountBook { AccountBook() }

  public static func encode(_ book: AccountBook) -> String {
    var root = JSONObject()
    root["version"] = .number(JSONNumber(version))
    root["auto_login"] = book.autoLogin.map { .string($0.description) } ?? .null
    root["previous_auto_login"] = book.previousAutoLogin.map { .string($0.description) } ?? .null
    root["accounts"] = .array(book.accounts.map(encode))
    if !book.unsettled.isEmpty { root["unsettled"] = .array(book.unsettled.map { .string($0.description) }) }
    if let provider = book.secretService { root["secret_service"] = .string(provider) }
    keep(book.unknownFields, in: &root)
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
        var record: JSONObject = ["expires_at": token.expiresAt.map { .string($0.iso8601) } ?? .null]
        if let generation = token.generation { record["generation"] = .string(generation) }
        if token.refreshable { record["refresh"] = .bool(true) }
        keep(token.unknownFields, in: &record)
        return .object(record)
      } ?? .null
    var session = JSONObject()
    for key in account.session.keys.sorted() { session[key] = .string(account.session[key]!) }
    object["session"] = .object(session)
    // Only when there are some: the index of someone who never tags stays as it was.
    if !account.tags.isEmpty { object["tags"] = .array(account.tags.map { .string($0) }) }
    if account.otp { object["otp"] = .bool(true) }
    keep(account.unknownFields, in: &object)
    return .object(object)
  }

  /// Appends the members this version does not know after the ones it wrote.
  private static func keep(_ unknown: JSONObject, in object: inout JSONObject) {
    for (key, value) in unknown where object[key] == nil { object[key] = value }
  }

  private static func unknown(_ object: JSONObject, known: Set<String>) -> JSONObject {
    var rest = JSONObject()
    for (key, value) in object where !known.contains(key) { rest[key] = value }
    return rest
  }

  public static func decode(_ bytes: [UInt8], file: DocumentFile) throws -> AccountBook {
    // The index as accounts writes it, read without a JSON tree; anything else the general way.
    if let book = IndexFastReader.read(bytes) { return book }
    return try decodeGenerally(bytes, file: file)
  }

  /// Any index: through the JSON tree, keeping unknown members, naming every error.
  static func decodeGenerally(_ bytes: [UInt8], file: DocumentFile) throws -> AccountBook {
    func malformed(_ detail: String) -> FileError {
      .malformed(
        path: file.path, detail: detail,
        backup: isReadable(file.backupPath) ? file.backupPath : nil)
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
    var unsettled: [AccountID] = []
    for entry in try root.optionalArray("unsettled") ?? [] {
      unsettled.append(try accountID(try entry.asString(), path: entry.path))
    }
    return try AccountBook(
      accounts: accounts,
      autoLogin: try root.optionalString("auto_login").map { try accountID($0, path: "auto_login") },
      previousAutoLogin: try root.optionalString("previous_auto_login").map {
        try accountID($0, path: "previous_auto_login")
      },
      unsettled: unsettled,
      secretService: try root.optionalString("secret_service"),
      unknownFields: unknown(try root.asObject(), known: rootKeys))
  }

  /// One account, in one pass over its members: `list` reads the index of thousands of
  /// accounts on every run. A member of the wrong type is read again through the reader, which
  /// throws the error naming its path.
  private static func decodeAccount(_ object: JSONReader) throws -> Account {
    var user: String?
    var backend: String?
    var remembered: Bool?
    var addedAt: Timestamp?
    var lastLogin: Timestamp?
    var token: TokenRecord?
    var session: [String: String] = [:]
    var tags: [String] = []
    var otp = false
    var unknown = JSONObject()
    for (key, value) in try object.asObject() {
      switch (key, value) {
      case ("user", .string(let text)): user = text
      case ("backend", .string(let text)): backend = text
      case ("remembered", .bool(let flag)): remembered = flag
      case ("added_at", .string(let text)): addedAt = try timestamp(text, at: join(object.path, key))
      case ("last_login", .string(let text)): lastLogin = try timestamp(text, at: join(object.path, key))
      case ("added_at", .null), ("last_login", .null), ("token", .null), ("session", .null): break
      case ("token", .object(let record)):
        // Member by member as above; a member of the wrong type is read through the reader.
        var expiresAt: Timestamp?
        var generation: String?
        var refreshable = false
        var unknownFields = JSONObject()
        for (name, member) in record {
          switch (name, member) {
          case ("expires_at", .string(let text)): expiresAt = try timestamp(text, at: join(join(object.path, key), name))
          case ("generation", .string(let text)): generation = text
          case ("refresh", .bool(let flag)): refreshable = flag
          case ("refresh", _): _ = try object.object(key).bool(name)
          case ("expires_at", .null), ("generation", .null): break
          case ("expires_at", _), ("generation", _): _ = try object.object(key).optionalString(name)
          default: unknownFields[name] = member
          }
        }
        token = TokenRecord(
          expiresAt: expiresAt, generation: generation, refreshable: refreshable, unknownFields: unknownFields)
      case ("session", .object(let values)):
        let reader = try object.object(key)
        for (name, value) in values {
          guard case .string(let text) = value else { _ = try reader.string(name); continue }
          session[name] = text
        }
      case ("tags", .array):
        for element in try object.array(key) {
          let text = try element.asString()
          guard Tags.isValid(text) else {
            throw JSONShapeError(
              path: element.path, problem: "'\(Names.printable(text))' is not a valid tag (\(Tags.rule))")
          }
          tags.append(text)
        }
      case ("tags", .null): break
      case ("otp", .bool(let flag)): otp = flag
      case ("otp", _): _ = try object.bool(key)
      case ("user", _), ("backend", _), ("added_at", _), ("last_login", _): _ = try object.string(key)
      case ("remembered", _): _ = try object.bool(key)
      case ("token", _), ("session", _): _ = try object.object(key)
      case ("tags", _): _ = try object.array(key)
      default: unknown[key] = value
      }
    }
    guard let user else { _ = try object.string("user"); throw JSONShapeError(path: object.path, problem: "no user") }
    if let problem = Names.userProblem(user) {
      throw JSONShapeError(path: join(object.path, "user"), problem: problem)
    }
    guard let backend else { _ = try object.string("backend"); throw JSONShapeError(path: object.path, problem: "no backend") }
    guard Names.isBackendName(backend) else {
      throw JSONShapeError(
        path: join(object.path, "backend"), problem: "'\(Names.printable(backend))' is not a valid backend name")
    }
    guard let remembered else { _ = try object.bool("remembered"); throw JSONShapeError(path: object.path, problem: "no remembered") }
    guard let addedAt else { throw JSONShapeError(path: join(object.path, "added_at"), problem: "missing") }
    return Account(
      id: AccountID(user: user, backend: backend), remembered: remembered, token: token,
      lastLogin: lastLogin, addedAt: addedAt, session: session, tags: tags, otp: otp, unknownFields: unknown)
  }

  /// The time `text` names; `path` (built only for the error) is where it is.
  private static func timestamp(_ text: String, at path: @autoclosure () -> String) throws -> Timestamp {
    guard let time = Timestamp(iso8601: text) else {
      throw JSONShapeError(
        path: path(), problem: "expected an ISO-8601 time, found \"\(Names.printable(text))\"")
    }
    return time
  }

  /// `USER@BACKEND`, both parts valid names.
  private static func accountID(_ text: String, path: String) throws -> AccountID {
    guard let id = validAccountID(text) else {
      throw JSONShapeError(path: path, problem: "expected USER@BACKEND, found \"\(Names.printable(text))\"")
    }
    return id
  }

  /// `USER@BACKEND` when both parts are valid names, else nil.
  static func validAccountID(_ text: String) -> AccountID? {
    guard let at = text.lastIndex(of: "@"), at != text.startIndex,
      case let user = String(text[..<at]), Names.isValidUser(user),
      case let backend = String(text[text.index(after: at)...]), Names.isBackendName(backend)
    else { return nil }
    return AccountID(user: user, backend: backend)
  }
}

func join(_ path: String, _ key: String) -> String {
  JSONReader.path(path, member: key)
}
