import SecretMemory

/// Fields as RFC 4180 writes them (`accounts export`; `CSVReader` reads them back).
public enum CSVWriter {
  /// A CSV field as RFC 4180 writes it: in double quotes, with each quote doubled, when it
  /// holds a comma, a quote, a line break or space at either end (or a tab in front). With
  /// `spreadsheetSafe`, a field a spreadsheet would take for a formula (`startsLikeAFormula`)
  /// is written with a `'` in front, in quotes: shown as text there, never run.
  public static func field(_ text: String, spreadsheetSafe: Bool = false) -> String {
    var bytes: [UInt8] = []
    field(Array(text.utf8), spreadsheetSafe: spreadsheetSafe, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  public static func field(_ secret: SecretBytes, spreadsheetSafe: Bool = false, into buffer: inout [UInt8]) {
    secret.withUnsafeBytes { field($0, spreadsheetSafe: spreadsheetSafe, into: &buffer) }
  }

  /// Whether a spreadsheet opening the file would take the field for a formula (and run it:
  /// DDE, a HYPERLINK sending the neighbouring cells away): it starts with `=`, `+`, `-`, `@`,
  /// a tab or a carriage return (OWASP's list for CSV injection).
  public static func startsLikeAFormula(_ bytes: some Collection<UInt8>) -> Bool {
    guard let first = bytes.first else { return false }
    return first == 0x3D || first == 0x2B || first == 0x2D || first == 0x40 || first == 0x09 || first == 0x0D
  }

  /// How many line feeds `secret` holds: each one makes the row it is written in span one
  /// line more (the line ends a field holds are written as they are, in quotes).
  public static func lineBreaks(in secret: SecretBytes) -> Int {
    secret.withUnsafeBytes { $0.count { $0 == 0x0A } }
  }

  private static func field(_ bytes: some BidirectionalCollection<UInt8>, spreadsheetSafe: Bool, into buffer: inout [UInt8]) {
    let escaped = spreadsheetSafe && startsLikeAFormula(bytes)
    let quoted = escaped || bytes.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
      || bytes.first == 0x20 || bytes.first == 0x09 || bytes.last == 0x20
    guard quoted else { return buffer.append(contentsOf: bytes) }
    buffer.append(0x22)
    if escaped { buffer.append(0x27) }
    for byte in bytes {
      buffer.append(byte)
      if byte == 0x22 { buffer.append(0x22) }
    }
    buffer.append(0x22)
  }
}
