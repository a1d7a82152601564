import SecretMemory

/// One record of a CSV file: its fields as bytes and the line it starts on (1-based; a quoted
/// field may hold line ends, so a record can span lines).
///
/// A field may be a password: take what is needed and `wipe()` the rest.
struct CSVRecord {
  let line: Int
  var fields: [[UInt8]]

  /// A line with nothing on it: RFC 4180 makes it one empty field, which carries nothing.
  var isBlank: Bool { fields.count == 1 && fields[0].isEmpty }

  /// Zeroes every field (notes and custom fields may hold secrets too).
  mutating func wipe() {
    for index in fields.indices { SecretMemory.wipe(&fields[index]) }
    fields.removeAll()
  }
}

/// Reads RFC 4180 CSV from bytes, one record at a time: fields separated by `,`, records ended
/// by CRLF or LF (or the end of the file), a field in double quotes may hold `,`, line ends
/// (kept as they are) and `""` for a quote. A UTF-8 byte order mark at the start is skipped.
///
/// Stricter than most readers, because what it reads becomes passwords: a quote inside an
/// unquoted field, text after a closing quote, a quote never closed, a carriage return that
/// ends no line, a NUL byte or bytes that are not UTF-8 stop the reading with the line and
/// the field's name, never its content. Each field is copied once, at its final size, so no
/// grown-and-freed buffer keeps a copy of a password.
struct CSVReader {
  /// The largest file read: an export of about 200,000 accounts.
  static let sizeLimit = 64 << 20
  /// The most fields a record may have.
  static let fieldLimit = 1_000

  /// The columns' names for messages, once the header is read (until then, and beyond them,
  /// a field is named by its position).
  var fieldNames: [String] = []

  private let bytes: [UInt8]
  private let fieldLimit: Int
  private var index = 0
  private var line = 1

  private static let quote: UInt8 = 0x22
  private static let comma: UInt8 = 0x2C
  private static let lineFeed: UInt8 = 0x0A
  private static let carriageReturn: UInt8 = 0x0D

  init(_ bytes: [UInt8], sizeLimit: Int = Self.sizeLimit, fieldLimit: Int = Self.fieldLimit) throws(ImportError) {
    guard bytes.count <= sizeLimit else { throw .tooLarge(limit: sizeLimit) }
    self.bytes = bytes
    self.fieldLimit = fieldLimit
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
  }

  /// The next record, or nil at the end of the file.
  mutating func next() throws(ImportError) -> CSVRecord? {
    guard index < bytes.count else { return nil }
    var record = CSVRecord(line: line, fields: [])
    do throws(ImportError) {
      while true {
        record.fields.append(try readField(number: record.fields.count))
        guard record.fields.count <= fieldLimit else {
          throw ImportError.tooManyFields(line: record.line, limit: fieldLimit)
        }
        guard index < bytes.count else { return record }
        switch bytes[index] {
        case Self.comma:
          index += 1
        case Self.carriageReturn:  // always followed by a line feed here: see `readUnquoted`
          index += 2
          line += 1
          return record
        default:  // a line feed
          index += 1
          line += 1
          return record
        }
      }
    } catch {
      record.wipe()  // the fields read before the one that is wrong
      throw error
    }
  }

  /// Reads one field, leaving `index` on the byte after it (a comma, a line end or the end). A
  /// field refused after it was copied is wiped first.
  private mutating func readField(number: Int) throws(ImportError) -> [UInt8] {
    let fieldLine = line
    var field: [UInt8]
    var problem: CSVProblem?
    if index < bytes.count, bytes[index] == Self.quote {
      field = try readQuoted(number: number)
      if index < bytes.count, !isSeparator(at: index) { problem = .textAfterClosingQuote }
    } else {
      field = try readUnquoted(number: number)
    }
    if problem == nil, !Self.isUTF8(field) { problem = .invalidUTF8 }
    guard let problem else { return field }
    wipe(&field)
    throw malformed(problem, number: number, line: problem == .invalidUTF8 ? fieldLine : line)
  }

  private mutating func readUnquoted(number: Int) throws(ImportError) -> [UInt8] {
    let start = index
    while index < bytes.count {
      switch bytes[index] {
      case Self.comma, Self.lineFeed:
        return Array(bytes[start..<index])
      case Self.carriageReturn:
        guard index + 1 < bytes.count, bytes[index + 1] == Self.lineFeed else {
          throw malformed(.loneCarriageReturn, number: number)
        }
        return Array(bytes[start..<index])
      case Self.quote: throw malformed(.quoteInUnquotedField, number: number)
      case 0: throw malformed(.nulByte, number: number)
      default: index += 1
      }
    }
    return Array(bytes[start..<index])
  }

  /// Reads a field in quotes, `index` on its opening quote: first finds where it ends, then
  /// copies it into a buffer of that size.
  private mutating func readQuoted(number: Int) throws(ImportError) -> [UInt8] {
    let openingLine = line
    let start = index + 1
    var end = start
    var doubledQuotes = 0
    while true {
      guard end < bytes.count else { throw malformed(.unterminatedQuote, number: number, line: openingLine) }
      switch bytes[end] {
      case Self.quote:
        guard end + 1 < bytes.count, bytes[end + 1] == Self.quote else {
          var field: [UInt8] = []
          field.reserveCapacity(end - start - doubledQuotes)
          var position = start
          while position < end {
            field.append(bytes[position])
            position += bytes[position] == Self.quote ? 2 : 1
          }
          index = end + 1
          return field
        }
        doubledQuotes += 1
        end += 2
      case Self.lineFeed:
        line += 1
        end += 1
      case 0:
        throw malformed(.nulByte, number: number)
      default:
        end += 1
      }
    }
  }

  /// A comma, a line feed, or a carriage return and a line feed.
  private func isSeparator(at position: Int) -> Bool {
    switch bytes[position] {
    case Self.comma, Self.lineFeed: true
    case Self.carriageReturn: position + 1 < bytes.count && bytes[position + 1] == Self.lineFeed
    default: false
    }
  }

  private func malformed(_ problem: CSVProblem, number: Int, line: Int? = nil) -> ImportError {
    let name = number < fieldNames.count ? fieldNames[number] : nil
    return .malformed(line: line ?? self.line, field: number + 1, name: name, problem: problem)
  }

  /// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or values beyond
  /// U+10FFFF), checked without making a String: the field may be a password.
  static func isUTF8(_ bytes: [UInt8]) -> Bool {
    if !bytes.contains(where: { $0 >= 0x80 }) { return true }
    var decoder = UTF8()
    var iterator = bytes.makeIterator()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue: continue
      case .emptyInput: return true
      case .error: return false
      }
    }
  }
}
