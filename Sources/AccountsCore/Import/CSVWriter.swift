import SecretMemory

/// Fields as RFC 4180 writes them (`accounts export`; `CSVReader` reads them back).
public enum CSVWriter {
  /// A CSV field as RFC 4180 writes it: in double quotes, with each quote doubled, when it
  /// holds a comma, a quote, a line break or space at either end.
  public static func field(_ text: String) -> String {
    var bytes: [UInt8] = []
    field(Array(text.utf8), into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  public static func field(_ secret: SecretBytes, into buffer: inout [UInt8]) {
    secret.withUnsafeBytes { field($0, into: &buffer) }
  }

  private static func field<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes, into buffer: inout [UInt8]) {
    let quoted = bytes.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
      || bytes.first == 0x20 || bytes.first == 0x09 || bytes.last == 0x20
    guard quoted else { return buffer.append(contentsOf: bytes) }
    buffer.append(0x22)
    for byte in bytes {
      buffer.append(byte)
      if byte == 0x22 { buffer.append(0x22) }
    }
    buffer.append(0x22)
  }
}
