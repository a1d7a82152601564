@testable import AccountsContract
import Testing

/// The "did you mean" of every error that names something unknown: typos, transpositions and
/// prefixes, closest first.
@Suite struct SuggestionsTests {
  @Test func findsTyposTranspositionsAndPrefixes() {
    #expect(Suggestions.closest(to: "lsit", in: ["list", "lock", "add"]) == ["list"])
    #expect(Suggestions.closest(to: "pasword", in: ["password", "passwd"]) == ["password"], "passwd is 3 edits away")
    #expect(Suggestions.closest(to: "pasword", in: ["password", "passwd", "pasword2"]) == ["pasword2", "password"], "prefixes first")
    #expect(Suggestions.closest(to: "xyz", in: ["list", "add"]) == [])
    #expect(Suggestions.closest(to: "back", in: ["backend", "add"]) == ["backend"])
    #expect(Suggestions.phrase(["a", "b", "c"]) == "'a', 'b' or 'c'")
  }
}
