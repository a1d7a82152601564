@testable import AccountsCore
import Testing

/// RFC 4180 CSV as the import files are written: quoted fields with commas, doubled quotes and
/// line ends, empty fields, a last record without a line end.
@Suite struct CSVReaderTests {
  /// Every record of `text`: its line and its fields as text.
  func records(_ text: String) throws(ImportError) -> [(line: Int, fields: [String])] {
    var reader = try CSVReader(Array(text.utf8))
    var records: [(line: Int, fields: [String])] = []
    while let record = try reader.next() {
      records.append((record.line, record.fields.map { String(decoding: $0, as: UTF8.self) }))
    }
    return records
  }

  @Test func quotedFieldsHoldCommasDoubledQuotesAndLineEndsAsTheyAre() throws {
    let text = "a,b,c\r\n\"x,y\",\"say \"\"hi\"\"\",\"l1\r\nl2\nl3\"\r\nlast,,\n\"\",\"\"\"\",end"
    let read = try records(text)
    try #require(read.map(\.line) == [1, 2, 5, 6])
    #expect(read[0].fields == ["a", "b", "c"])
    #expect(read[1].fields == ["x,y", "say \"hi\"", "l1\r\nl2\nl3"])
    #expect(read[2].fields == ["last", "", ""], "empty fields, the last one too")
    #expect(read[3].fields == ["", "\"", "end"], "a final record without a line end")
  }
}
