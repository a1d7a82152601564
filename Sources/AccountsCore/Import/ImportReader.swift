import AccountsContract
import AccountsSystem
import SecretMemory

/// One account of an import file, its names checked by the rules `add` saves them by.
public struct ImportRow: Sendable {
  /// The line the row starts on.
  public let line: Int
  public let user: String
  /// The backend the row names (accounts' own format only: `user@backend` or the `backend`
  /// column); nil when it names none and `--backend` decides.
  public let backend: String?
  public let password: SecretBytes?
  /// Valid tags, sorted, each once (accounts' own format only).
  public let tags: [String]
  /// The TOTP seed as the file has it (an `otpauth://` URI or base32), not checked here: a
  /// secret like the password.
  public let otp: SecretBytes?
  /// The hosts of the site's URL (Bitwarden keeps several, one a line or comma-separated),
  /// whose backend the row goes to when nothing else names one.
  public var hosts: [String] = []
}

/// Something wrong with one row: the row is left out, and the command reports every problem of
/// the file at once. Never holds a password: the user name, a tag or a backend name at most.
public struct ImportProblem: Sendable, Equatable, CustomStringConvertible {
  public let line: Int
  /// The column's name as the header writes it, or nil for the whole row.
  public let field: String?
  public let message: String
  public let fix: String?

  public init(line: Int, field: String?, message: String, fix: String?) {
    self.line = line
    self.field = field
    self.message = message
    self.fix = fix
  }

  public var description: String {
    "line \(line)" + (field.map { ", field \($0)" } ?? "") + ": " + message
  }
}

/// A row that is no account and is left out on purpose (a Bitwarden secure note, an entry in
/// KeePassXC's recycle bin).
public struct ImportSkip: Sendable, Equatable {
  public let line: Int
  public let reason: String
}

/// What an import file holds, checked; nothing is written yet.
public struct ImportFile: Sendable {
  public let format: ImportFormat
  /// The header's names of the account's and the OTP seed's columns, as written, for the
  /// problems the command finds in a row.
  public var userField = ""
  public var otpField: String?
  /// The header's name of the site's URL column, when the file has one.
  public var urlField: String?
  /// Whether the file has a tags column: only then does `--update` replace an account's tags.
  public var hasTags = false
  public var rows: [ImportRow] = []
  public var problems: [ImportProblem] = []
  /// The account each row of `problems` names, by its line, when its user name (and backend)
  /// are valid: the user and the backend the row gives, if any.
  public var named: [Int: (user: String, backend: String?)] = [:]
  public var skipped: [ImportSkip] = []
}

/// Reads an import file (see `ImportFormat`) into rows, the problems of the rows that cannot be
/// imported, and the rows left out. The whole file is read before anything is written.
public enum ImportReader {
  /// The largest file `read` takes: read at most one byte more, so a larger file (or an endless
  /// stdin) is refused without being held in memory.
  public static let sizeLimit = CSVReader.sizeLimit

  /// Reads `bytes`, the whole file. `backends` are the configured backends' names: in
  /// `user@backend` the part after the last `@` is a backend when it is one of them or has no
  /// dot (as `add` reads a new name); else it belongs to the user name (`bob@example.com`).
  /// Throws when the file cannot be read at all (too large, not CSV, no known header).
  public static func read(_ bytes: [UInt8], backends: Set<String> = []) throws(ImportError) -> ImportFile {
    var reader = try CSVReader(bytes)
    var headerRecord: CSVRecord
    repeat {
      guard let next = try reader.next() else { throw .noHeader }
      headerRecord = next
    } while headerRecord.isBlank
    defer { headerRecord.wipe() }  // perhaps no header but a first account
    guard let columns = try ImportColumns(header: headerRecord.fields) else {
      throw .unknownHeader(columns: headerRecord.fields.count)
    }
    reader.fieldNames = columns.names
    var file = ImportFile(format: columns.format)
    file.userField = columns.names[columns.user]
    file.otpField = columns.otp.map { columns.names[$0] }
    file.urlField = columns.url.map { columns.names[$0] }
    file.hasTags = columns.tags != nil
    while var record = try reader.next() {
      defer { record.wipe() }
      if record.isBlank { continue }
      if let column = columns.unread.first(where: {
        $0 < record.fields.count && ImportFormat.holdsOneTimeCodeURI(record.fields[$0])
      }) {
        throw .unreadOneTimeCodes(column: columns.names[column], line: record.line, format: columns.format)
      }
      var row = RowReader(line: record.line, columns: columns, backends: backends)
      if let skip = row.skip(record) {
        file.skipped.append(skip)
      } else if let account = row.read(&record) {
        file.rows.append(account)
      } else {
        file.problems += row.problems
        file.named[record.line] = row.named
      }
    }
    return file
  }
}

/// Reads one record into a row, collecting every problem it has. It keeps no reference to the
/// record: a second one would make taking a secret out copy the field rather than wipe it.
private struct RowReader {
  let line: Int
  let columns: ImportColumns
  let backends: Set<String>
  var problems: [ImportProblem] = []
  /// The account a row with problems names, when its user name and backend are valid.
  var named: (user: String, backend: String?)?

  /// Why the row is no account, or nil when it should be one.
  func skip(_ record: CSVRecord) -> ImportSkip? {
    guard record.fields.count == columns.names.count else { return nil }
    if let type = text(record, columns.type), !type.isEmpty, type.lowercased() != "login" {
      return ImportSkip(line: line, reason: "a Bitwarden item of type '\(Names.printable(type, limit: 20))'")
    }
    // KeePassXC exports every group, the recycle bin too: `Root/Recycle Bin/...`.
    let groups = text(record, columns.group)?.split(separator: "/", omittingEmptySubsequences: false)
    if groups?.dropFirst().first == "Recycle Bin" {
      return ImportSkip(line: line, reason: "in KeePassXC's Recycle Bin")
    }
    if columns.format == .lastPass, text(record, columns.url) == "http://sn" {
      return ImportSkip(line: line, reason: "a LastPass secure note")
    }
    if text(record, columns.archived)?.lowercased() == "true" {
      return ImportSkip(line: line, reason: "archived in 1Password")
    }
    // A password manager keeps entries without a user name (Wi-Fi keys, notes, sites that ask
    // only a password): no account. In accounts' own format an empty account is a mistake.
    if columns.format != .accounts, ImportColumns.trimmed(text(record, columns.user) ?? "").isEmpty {
      return ImportSkip(line: line, reason: "no user name")
    }
    return nil
  }

  /// The row, or nil with `problems` saying why not. Takes the secrets out of `record`.
  mutating func read(_ record: inout CSVRecord) -> ImportRow? {
    guard record.fields.count == columns.names.count else {
      let count = record.fields.count
      problem(
        nil, "it has \(count) \(count == 1 ? "field" : "fields"), the header \(columns.names.count)",
        fix: "every row needs the header's columns")
      return nil
    }
    var (user, backend) = splitAccount(text(record, columns.user) ?? "")
    var backendColumn: Int? = columns.user
    if let problem = Names.userProblem(user) {
      self.problem(columns.user, problem, fix: "user names may hold \(Names.userRule)")
    }
    if let column = text(record, columns.backend), !column.isEmpty {
      if let named = backend, named != column {
        let message = "it names backend '\(Names.printable(named))' but the backend column says "
        problem(columns.user, message + "'\(Names.printable(column))'", fix: "give the backend once")
      }
      backend = column
      backendColumn = columns.backend
    }
    if let backend {
      do throws(CommandError) { try Names.checkBackend(backend) } catch {
        problem(backendColumn, error.message, fix: error.fix)
      }
    }
    if problems.isEmpty { named = (user, backend) }
    var tags: [String] = []
    for tag in (text(record, columns.tags) ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" }) {
      do throws(CommandError) {
        try Tags.check(String(tag))
        tags.append(String(tag))
      } catch {
        problem(columns.tags, error.message, fix: error.fix)
      }
    }
    for (column, what) in [(columns.password, "password"), (columns.otp, "OTP seed")] {
      if let column, record.fields[column].count > SecretLimits.bytes {
        problem(
          column, "the \(what) is longer than \(SecretLimits.text)",
          fix: "no \(what) may be longer (`accounts add` and `passwd` take at most \(SecretLimits.text) too)")
      }
    }
    guard problems.isEmpty else { return nil }
    let bitwarden = columns.format == .bitwarden
    let urls = (text(record, columns.url) ?? "").split { $0 == "\n" || $0 == "\r\n" || (bitwarden && $0 == ",") }
    return ImportRow(
      line: line, user: user, backend: backend, password: secret(columns.password, from: &record),
      tags: Tags.normalised(tags), otp: secret(columns.otp, from: &record),
      hosts: Array(Set(urls.compactMap { HostName.of(url: String($0)) })).sorted())
  }

  /// `user@backend` of accounts' own format: the rule `add` reads a new name by.
  private func splitAccount(_ account: String) -> (user: String, backend: String?) {
    guard columns.format == .accounts, let at = account.lastIndex(of: "@"), at != account.startIndex else {
      return (account, nil)
    }
    let suffix = String(account[account.index(after: at)...])
    guard backends.contains(suffix) || !suffix.contains(".") else { return (account, nil) }
    return (String(account[..<at]), suffix)
  }

  /// A field that is not secret, as text (the reader checked it is UTF-8).
  private func text(_ record: CSVRecord, _ column: Int?) -> String? {
    column.map { String(decoding: record.fields[$0], as: UTF8.self) }
  }

  /// A secret field, moved out of `record` (its copy wiped); nil when empty.
  private func secret(_ column: Int?, from record: inout CSVRecord) -> SecretBytes? {
    guard let column, !record.fields[column].isEmpty else { return nil }
    return SecretBytes(consuming: &record.fields[column])
  }

  private mutating func problem(_ column: Int?, _ message: String, fix: String?) {
    problems.append(ImportProblem(line: line, field: column.map { columns.names[$0] }, message: message, fix: fix))
  }
}
