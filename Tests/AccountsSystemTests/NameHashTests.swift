import AccountsSystem
import Testing

/// The one name hash (FNV-1a, 64 bits): the published test values, and names that differ in a
/// byte get other hashes (the token cache's setups, the lease files, the session lock bytes).
@Suite struct NameHashTests {
  @Test func theFNV1aValues() {
    #expect(NameHash.hexadecimal("") == "cbf29ce484222325")
    #expect(NameHash.hexadecimal("a") == "af63dc4c8601ec8c")
    #expect(NameHash.hexadecimal("foobar") == "85944171f73967e8")
    #expect(NameHash.value("a") == 0xaf63_dc4c_8601_ec8c)
  }

  @Test func namesThatDifferGetOtherHashes() {
    #expect(NameHash.hexadecimal("/state/a\u{0}unix:path=/bus") != NameHash.hexadecimal("/state/b\u{0}unix:path=/bus"))
    #expect(NameHash.hexadecimal("qa1@corp") != NameHash.hexadecimal("qa1@corp2"))
    #expect(NameHash.hexadecimal(String(repeating: "long", count: 2000)).utf8.count == 16)
  }
}
