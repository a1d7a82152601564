import SecretMemory
import Testing

@testable import AdapterKit

/// What a message quotes of a reply it could not read.
@Suite struct MessageTests {
  @Test func whiteSpaceAndControlsCollapseToOneSpace() {
    let page = "<html>\n  <head>\n\t<title>502 Bad\u{1B}[31m Gateway</title>\r\n"
    #expect(Message.excerpt(Array(page.utf8)) == "<html> <head> <title>502 Bad [31m Gateway</title>")
  }

  @Test func theExcerptIsBounded() {
    let long = String(repeating: "a", count: 500)
    #expect(Message.excerpt(Array(long.utf8), limit: 10) == "aaaaaaaaaa…")
    #expect(Message.excerpt(Array("short".utf8), limit: 10) == "short")
    #expect(Message.excerpt([]) == "")
  }

  @Test func secretsAreCutOutWhereverTheyStand() {
    let secret = SecretBytes(Array("hunter2".utf8))
    let echo = Array("password=hunter2&again=hunter2hunter2".utf8)
    #expect(Message.excerpt(echo, redacting: [secret]) == "password=…&again=……")
    // One that straddles the cut is found: the search reads past the excerpt's end.
    let late = Array((String(repeating: "x", count: 9) + "hunter2").utf8)
    #expect(Message.excerpt(late, limit: 10, redacting: [secret]) == "xxxxxxxxx…")
    #expect(Message.excerpt(Array("ok".utf8), redacting: [SecretBytes.empty]) == "ok")
    // Blanks collapse, so they cannot push an echoed secret past the part searched.
    let token = String(repeating: "t0K", count: 34)
    let padded = Array((String(repeating: " ", count: 330) + token).utf8)
    #expect(Message.excerpt(padded, redacting: [SecretBytes(Array(token.utf8))]) == "…")
  }
}
