import AccountsContract
import AccountsSystem

/// Why an import file cannot be read at all (its rows' own problems are `ImportProblem`s).
/// Bad input: exit status 2, as for a bad row. Messages name the line and the field, never a
/// field's content: any field may be a password, and so may any column of a first line that
/// turns out to be no header. The command puts the file's name in front.
public enum ImportError: UserFacingError, Equatable {
  case tooLarge(limit: Int)
  case tooManyFields(line: Int, limit: Int)
  /// `field` counts from 1; `name` is its column's name once the header is read.
  case malformed(line: Int, field: Int, name: String?, problem: CSVProblem)
  /// Nothing but blank lines: no header row.
  case noHeader
  /// The first line is no header of a format accounts reads.
  case unknownHeader(columns: Int)
  /// A column of accounts' own format that it does not know (1-based position).
  case unknownColumn(position: Int)
  case duplicateColumn(name: String)
  /// A column that looks like one-time-code seeds in a format that reads none there, by its
  /// name or (`line`) by an `otpauth://` URI in it: importing would drop them.
  case unreadOneTimeCodes(column: String, line: Int?, format: ImportFormat)

  public var status: ExitStatus { .usage }

  public var message: String {
    switch self {
    case .tooLarge(let limit): "it is larger than \(limit >> 20) MiB, the most accounts imports"
    case .tooManyFields(let line, let limit): "line \(line) has more than \(limit) fields"
    case .malformed(let line, let field, let name, let problem):
      "line \(line), field \(name ?? String(field)): \(problem.message)"
    case .noHeader: "it is empty: the first line must name the columns"
    case .unknownHeader(let columns):
      "its first line (\(columns) \(columns == 1 ? "column" : "columns")) is not a header accounts knows"
    case .unknownColumn(let position):
      "column \(position) of the header is none of \(ImportFormat.accounts.headerRow)"
    case .duplicateColumn(let name): "the header names the column '\(name)' twice"
    case .unreadOneTimeCodes(let column, nil, let format):
      "its column '\(column)' looks like one-time-code seeds, which \(format.name)'s format does not hold: "
        + "they would be lost"
    case .unreadOneTimeCodes(let column, let line?, let format):
      "line \(line), field \(column): an otpauth:// URI (a one-time-code seed) in a column \(format.name)'s "
        + "format does not read: it would be lost"
    }
  }

  public var fix: String? {
    switch self {
    case .tooLarge: "split it into smaller files"
    case .tooManyFields: "check its quotes: a field that holds commas must be in double quotes"
    case .malformed(_, _, _, let problem): problem.fix
    case .noHeader, .unknownHeader:
      "export it again, or put one of these header rows first: "
        + ImportFormat.allCases.map { "\($0.headerRow) (\($0.name))" }.joined(separator: "; ")
    case .unknownColumn: "rename or remove that column (tags are in 'tags', space-separated)"
    case .duplicateColumn: "remove one of them"
    case .unreadOneTimeCodes:
      "write the file in accounts' own format (" + ImportFormat.accounts.headerRow
        + "), whose otp column takes them, or remove the column and set each seed with `accounts otp set USER`"
    }
  }
}

/// What breaks RFC 4180 (or text) in a field.
public enum CSVProblem: Sendable, Equatable {
  case quoteInUnquotedField
  case textAfterClosingQuote
  case unterminatedQuote
  case loneCarriageReturn
  case nulByte
  case invalidUTF8

  var message: String {
    switch self {
    case .quoteInUnquotedField: "a double quote inside a field that does not start with one"
    case .textAfterClosingQuote: "text after the closing quote of a field"
    case .unterminatedQuote: "a quoted field is never closed"
    case .loneCarriageReturn: "a carriage return that does not end a line"
    case .nulByte: "a NUL byte"
    case .invalidUTF8: "bytes that are not UTF-8"
    }
  }

  var fix: String {
    switch self {
    case .quoteInUnquotedField: "put the whole field in double quotes and double each quote in it (\"a\"\"b\")"
    case .textAfterClosingQuote: "double each quote inside a quoted field (\"a\"\"b\")"
    case .unterminatedQuote: "close the quoted field with a double quote"
    case .loneCarriageReturn: "end lines with LF or CRLF, or put the field in double quotes"
    case .nulByte: "remove it: a CSV file is text"
    case .invalidUTF8: "save the file as UTF-8"
    }
  }
}
