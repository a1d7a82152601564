import AccountsCore
import AccountsJSON
import Glibc

/// How accounts look on the terminal and in `--json` (SPEC §3), shared by every command that
/// shows one.
enum AccountPresentation {
  /// The `--json` object of one account; the keys are part of the contract.
  static func json(_ account: Account, in book: AccountBook, now: Timestamp) -> JSONValue {
    let token: JSONObject
    switch account.tokenState(at: now) {
    case .none: token = ["state": .string("none"), "expires_at": .null]
    case .valid(let until):
      token = ["state": .string("valid"), "expires_at": until.map { .string($0.iso8601) } ?? .null]
    case .expired(let at): token = ["state": .string("expired"), "expires_at": .string(at.iso8601)]
    }
    return .object([
      "account": .string(account.id.description),
      "user": .string(account.id.user),
      "backend": .string(account.id.backend),
      "auto_login": .bool(book.autoLogin == account.id),
      "remembered": .bool(account.remembered),
      "token": .object(token),
      "last_login": account.lastLogin.map { .string($0.iso8601) } ?? .null,
    ])
  }

  /// The QQ-style table: the auto-login account starred, remembered passwords and token state.
  static func table(_ accounts: [Account], in book: AccountBook, now: Timestamp) -> String {
    var rows = [["  ACCOUNT", "BACKEND", "PASSWORD", "TOKEN", "LAST LOGIN"]]
    for account in accounts {
      let token: String
      switch account.tokenState(at: now) {
      case .none: token = "none"
      case .valid(let until?): token = "valid until \(LocalTime.format(until))"
      case .valid(nil): token = "valid"
      case .expired(let at): token = "expired \(LocalTime.format(at))"
      }
      rows.append([
        (book.autoLogin == account.id ? "* " : "  ") + account.id.user,
        account.id.backend,
        account.remembered ? "remembered" : "-",
        token,
        account.lastLogin.map(LocalTime.format) ?? "never",
      ])
    }
    return TextTable.render(rows)
  }
}

/// "1 account", "3 accounts": a count with its noun, for messages.
func counted(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// Plain columns separated by two spaces; the last column is not padded. Every cell goes
/// through the one sanitiser first: cells hold names and settings from files people edit.
enum TextTable {
  static func render(_ rows: [[String]]) -> String {
    let rows = rows.map { $0.map { Names.printable($0, limit: .max) } }
    guard let columns = rows.first?.count else { return "" }
    var widths = [Int](repeating: 0, count: columns)
    for row in rows {
      for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
    }
    var out = ""
    for row in rows {
      var line = ""
      for (column, cell) in row.enumerated() {
        line += cell
        if column < columns - 1 {
          line += String(repeating: " ", count: widths[column] - cell.count + 2)
        }
      }
      out += line.trimmingTrailingSpace() + "\n"
    }
    return out
  }
}

/// Times for people: the local time zone (TZ), minutes. `--json` uses UTC ISO-8601 instead.
enum LocalTime {
  static func format(_ time: Timestamp) -> String {
    var seconds = time_t(clamping: time.secondsSince1970)
    var parts = tm()
    localtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
      + "\(two(parts.tm_hour)):\(two(parts.tm_min))"
  }
}

extension Output {
  /// Writes a JSON value and a newline.
  func writeJSON(_ value: JSONValue) {
    write(JSON.serialize(value, pretty: true) + "\n")
  }
}
