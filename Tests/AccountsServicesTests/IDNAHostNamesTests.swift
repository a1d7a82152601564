import AccountsCore
import AccountsServices
import Testing

/// Host names converted by the real libidn2 (UTS #46, non-transitional, NFC first): the name a
/// resolver looks up, whatever form the user typed it in.
@Suite struct IDNAHostNamesTests {
  let names = IDNAHostNames()

  func ascii(_ host: String) -> String? { try? names.asciiHost(host).get() }

  @Test func unicodeHostsGetTheirASCIIForm() {
    // RFC 3492 §7.1's Chinese sample, and the usual ones.
    #expect(ascii("他们为什么不说中文") == "xn--ihqwcrb4cv8a8dqg056pqjye")
    #expect(ascii("münchen.de") == "xn--mnchen-3ya.de")
    #expect(ascii("例え.テスト") == "xn--r8jz45g.xn--zckzah")
    #expect(ascii("api.Bücher.example") == "api.xn--bcher-kva.example", "upper case is mapped")
  }

  /// A decomposed ü (u + U+0308, as macOS file names and some keyboards give it) and
  /// fullwidth letters and dot (an East Asian input method) name the same host as the composed,
  /// half-width spelling: converted label by label as typed, each would name another domain.
  @Test func decomposedAndFullwidthInputNameTheSameHost() {
    #expect(ascii("mu\u{0308}nchen.de") == "xn--mnchen-3ya.de")
    #expect(ascii("ｍüｎｃｈｅｎ．ｄｅ") == "xn--mnchen-3ya.de")
    #expect(ascii("ＡＰＩ.bücher.example") == "api.xn--bcher-kva.example")
  }

  @Test func aHostIDNADisallowsIsInvalidWithLibidn2sReason() {
    guard case .failure(.invalid(let why)) = names.asciiHost("a\u{2620}\u{200D}b.example") else {
      Issue.record("accepted: \(names.asciiHost("a\u{2620}\u{200D}b.example"))")
      return
    }
    #expect(!why.isEmpty)
  }
}
