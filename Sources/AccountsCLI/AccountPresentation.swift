import AccountsContract
import AccountsCore
import AccountsSystem
import AccountsJSON
import Glibc

/// How accounts look on the terminal and in `--json` (SPEC §3), shared by every command that
/// shows one.
enum AccountPresentation {
  /// The `--json` object of one account; the keys are part of the contract.
  static func json(_ account: Account, in book: AccountBook, now: Timestamp, lease: LeaseRecord? = nil) -> JSONValue {
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
      "otp": .bool(account.otp),
      "token": .object(token),
      "last_login": account.lastLogin.map { .string($0.iso8601) } ?? .null,
      "tags": .array(account.tags.map { .string($0) }),
      "lease": lease.map { record in
        .object([
          "lease": .string(record.lease), "holder": .string(record.holder.description),
          "expires_at": record.expiresAt.map { .string($0.iso8601) } ?? .null,
          "fence": .number(JSONNumber(Int64(record.fence))),
        ])
      } ?? .null,
    ])
  }

  /// The QQ-style table: the auto-login account starred, remembered passwords and token state.
  /// A TAGS column comes last, and only when some account shown has a tag: the columns that
  /// scripts read stay where they were, and the table of someone who never tags is unchanged.
  static func table(
    _ accounts: [Account], in book: AccountBook, now: Timestamp, leases: [AccountID: LeaseRecord] = [:]
  ) -> String {
    let tagged = accounts.contains { !$0.tags.isEmpty }
    let leased = accounts.contains { leases[$0.id] != nil }
    var rows = [
      ["  ACCOUNT", "BACKEND", "PASSWORD", "TOKEN", "LAST LOGIN"] + (tagged ? ["TAGS"] : []) + (leased ? ["LEASED"] : [])
    ]
    for account in accounts {
      let token: String
      switch account.tokenState(at: now) {
      case .none: token = "none"
      case .valid(let until?): token = LocalTime.format(until, after: "valid until ")
      case .valid(nil): token = "valid"
      case .expired(let at): token = LocalTime.format(at, after: "expired ")
      }
      rows.append([
        (book.autoLogin == account.id ? "* " : "  ") + account.id.user,
        account.id.backend,
        account.remembered ? (account.otp ? "remembered+otp" : "remembered") : (account.otp ? "otp" : "-"),
        token,
        account.lastLogin.map { LocalTime.format($0) } ?? "never",
      ] + (tagged ? [account.tags.isEmpty ? "-" : account.tags.joined(separator: ",")] : [])
        + (leased ? [leases[account.id].map { $0.holder.description } ?? "-"] : []))
    }
    return TextTable.render(rows)
  }
}

/// Plain columns separated by two spaces; the last column is not padded. Every cell goes
/// through the one sanitiser first: cells hold names and settings from files people edit.
///
/// Written as bytes into one buffer, a column's width in characters: `list` renders a row per
/// saved account, tens of thousands of cells.
enum TextTable {
  /// `rows` in columns two spaces apart, each as wide as its widest cell or `minimumWidths`.
  static func render(_ rows: [[String]], minimumWidths: [Int] = []) -> String {
    guard let columns = rows.first?.count else { return "" }
    var cells: [String] = []
    var cellWidths: [Int] = []
    cells.reserveCapacity(rows.count * columns)
    cellWidths.reserveCapacity(rows.count * columns)
    var widths = (0..<columns).map { $0 < minimumWidths.count ? minimumWidths[$0] : 0 }
    var size = 0
    for row in rows {
      for (column, cell) in row.enumerated() {
        // Printable ASCII, most cells, is shown as it is: the sanitiser would return it unchanged.
        let ascii = printableASCIICount(cell)
        let shown = ascii == nil ? Names.printable(cell, limit: .max) : cell
        let width = ascii ?? shown.count
        cells.append(shown)
        cellWidths.append(width)
        widths[column] = max(widths[column], width)
        size += shown.utf8.count
      }
    }
    var out: [UInt8] = []
    out.reserveCapacity(size + rows.count * (widths.reduce(0, +) + 2 * columns))
    for start in stride(from: 0, to: cells.count, by: columns) {
      let lineStart = out.count
      for column in 0..<columns {
        out.append(contentsOf: cells[start + column].utf8)
        if column < columns - 1 {
          out.append(contentsOf: repeatElement(0x20, count: widths[column] - cellWidths[start + column] + 2))
        }
      }
      while out.count > lineStart, out.last == 0x20 { out.removeLast() }
      out.append(0x0A)
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The length of `text` when it is printable ASCII only, else nil.
  private static func printableASCIICount(_ text: String) -> Int? {
    var text = text
    return text.withUTF8 { bytes in bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? bytes.count : nil }
  }
}

extension Output {
  /// Writes a JSON value and a newline.
  func writeJSON(_ value: JSONValue) {
    write(JSON.serialize(value, pretty: true) + "\n")
  }
}
