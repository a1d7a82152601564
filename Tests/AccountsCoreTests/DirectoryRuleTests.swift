@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Testing

/// A directory rule (`accounts rule add DIR USER`): which directories it covers, which rule
/// decides among several, what a rule's directory may be, and how config.json keeps rules.
@Suite struct DirectoryRuleTests {
  let alice = AccountID(user: "alice", backend: "corp")
  let bob = AccountID(user: "bob", backend: "corp")
  let carolCorp = AccountID(user: "carol", backend: "corp")
  let carolTest = AccountID(user: "carol", backend: "test")

  @Test func aRuleContainsItsDirectoryAndWhatIsBelowComponentByComponent() {
    let corp = DirectoryRule(directory: "/work/corp", account: alice)
    #expect(corp.contains("/work/corp"))
    #expect(corp.contains("/work/corp/api/v1"))
    #expect(!corp.contains("/work/corporate"), "a string prefix is not a directory prefix")
    #expect(!corp.contains("/work"))
    #expect(!corp.contains("/work/cor"))
    let root = DirectoryRule(directory: "/", account: bob)
    #expect(root.contains("/") && root.contains("/work/corporate"))
  }

  @Test func theLongestContainingRuleDecides() {
    let work = DirectoryRule(directory: "/work", account: carolTest)
    let corp = DirectoryRule(directory: "/work/corp", account: alice)
    let corpAPI = DirectoryRule(directory: "/work/corp/api", account: bob)
    let corporate = DirectoryRule(directory: "/work/corporate", account: carolCorp)
    let rules = [work, corpAPI, corporate, corp]  // order of the list must not matter
    #expect(DirectoryRule.deciding(rules, for: "/work/corp/api/x") == corpAPI)
    #expect(DirectoryRule.deciding(rules, for: "/work/corp/apis") == corp)
    #expect(DirectoryRule.deciding(rules, for: "/work/corporate/x") == corporate)
    #expect(DirectoryRule.deciding(rules, for: "/work/other") == work)
    #expect(DirectoryRule.deciding(rules, for: "/home") == nil)
    #expect(
      DirectoryRule.ordered(rules).map(\.directory) == ["/work/corporate", "/work/corp/api", "/work/corp", "/work"],
      "longest first, as `accounts rules` lists them")
  }

  @Test func aRulesDirectoryIsAbsoluteNormalisedAndPrintable() {
    #expect(DirectoryRule.directoryProblem("/work/corp") == nil)
    #expect(DirectoryRule.directoryProblem("/") == nil)
    #expect(DirectoryRule.directoryProblem("work/corp") == "not an absolute path")
    #expect(DirectoryRule.directoryProblem("/work/corp/") != nil)
    #expect(DirectoryRule.directoryProblem("/work/../etc") != nil)
    #expect(DirectoryRule.directoryProblem("/work//corp") != nil)
    #expect(DirectoryRule.directoryProblem("/work/a\nb") == "contains the invisible character U+000A")
    #expect(DirectoryRule.directoryProblem("/work/\u{202E}gpj") != nil, "a bidi override")
  }

  @Test func rulesRoundTripThroughConfigJSONAndBadOnesAreNamed() throws {
    var configuration = try Configuration()
    configuration.setRule(DirectoryRule(directory: "/work/corp", account: alice))
    let replaced = configuration.setRule(DirectoryRule(directory: "/work/corp", account: bob))
    #expect(replaced?.account == alice, "one rule per directory: the second replaces the first")
    configuration.setRule(DirectoryRule(directory: "/oss", account: AccountID(user: "a@b.c", backend: "test")))
    let text = ConfigFormat.encode(configuration)
    let file = DocumentFile(path: "/nonexistent/config.json")
    #expect(try ConfigFormat.decode(Array(text.utf8), file: file) == configuration)
    #expect(configuration.rules.map(\.directory) == ["/work/corp", "/oss"])
    #expect(!ConfigFormat.encode(try Configuration()).contains("rules"), "no member without a rule")

    func decodeError(_ rules: String) -> String {
      let json = #"{"version": 1, "backends": {}, "rules": \#(rules)}"#
      do {
        _ = try ConfigFormat.decode(Array(json.utf8), file: file)
        return ""
      } catch {
        return (error as? UserFacingError)?.message ?? "\(error)"
      }
    }
    #expect(decodeError(#"{"work": "alice@corp"}"#).contains("not an absolute path"))
    #expect(decodeError(#"{"/work": "alice"}"#).contains("USER@BACKEND"))
    #expect(decodeError(#"{"/work": "al ice@corp"}"#).contains("USER@BACKEND"))
    #expect(decodeError(#"{"/work/\n": "alice@corp"}"#).contains("invisible"))
  }
}
