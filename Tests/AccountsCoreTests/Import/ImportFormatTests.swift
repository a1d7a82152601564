@testable import AccountsCore
import Testing

/// The formats `import` reads, each known by its header row.
@Suite struct ImportFormatTests {
  @Test func eachFormatIsKnownByItsHeaderRow() throws {
    for format in ImportFormat.allCases {
      #expect(ImportFormat.detect(header: format.headerRow.split(separator: ",").map(String.init)) == format)
    }
    #expect(ImportFormat.detect(header: ["Group", "Title", "Username", "Password", "URL", "Notes"]) == .keePassXC)
    #expect(ImportFormat.detect(header: ["name", "url", "username", "password"]) == .chrome)
    #expect(ImportFormat.detect(header: [" ACCOUNT ", "Password\t"]) == .accounts)
    #expect(ImportFormat.detect(header: ["user", "password"]) == nil)
  }
}
