import AccountsContract
import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCLI

/// `accounts list --tag TAG...`, run in process: only the accounts with every tag, in the
/// index's order; none is no error; a bad tag is a usage error before anything is read.
@Suite struct ListCommandTests {
  let world: TestEnvironment

  init() throws {
    world = try TestEnvironment()
    try world.addBackend()
    try world.addBackend("home")
    try world.addAccount("me", backend: "home", password: "pw", tags: ["dev"])
    try world.addAccount("qa1", tags: ["qa", "smoke"])
    try world.addAccount("qa2", tags: ["qa"])
  }

  /// The user names of a listing's rows, after its header.
  func users(_ table: String) -> [String] {
    table.split(separator: "\n").dropFirst().map { String($0.dropFirst(2).prefix { $0 != " " }) }
  }

  @Test func aTagListsOnlyTheAccountsThatHaveIt() {
    let result = world.run("list", "--tag", "qa")
    #expect(result.status == .success)
    #expect(users(result.output) == ["qa1", "qa2"], "\(result.output)")
    #expect(result.output.hasPrefix("  ACCOUNT"))
    #expect(result.output.split(separator: "\n").first?.hasSuffix("TAGS") == true, "\(result.output)")
    #expect(result.messages.isEmpty)
  }

  @Test func severalTagsListOnlyTheAccountsThatHaveEveryOne() {
    let result = world.run("list", "--tag", "qa", "--tag", "smoke")
    #expect(result.status == .success)
    #expect(users(result.output) == ["qa1"])
  }

  @Test func withJSONEachAccountCarriesItsTags() {
    let result = world.run("list", "--tag", "qa", "--json")
    #expect(result.status == .success)
    #expect(result.output.hasPrefix("["))
    #expect(result.output.contains("\"account\": \"qa1@corp\""))
    #expect(result.output.contains("\"account\": \"qa2@corp\""))
    #expect(!result.output.contains("me@home"))
    #expect(result.output.contains("\"tags\": [\n      \"qa\",\n      \"smoke\"\n    ]"), "\(result.output)")
  }

  @Test func aTagNoAccountHasListsNothingAndSaysSoWithoutAnError() {
    let result = world.run("list", "--tag", "nightly")
    #expect(result.status == .success)
    #expect(result.output.isEmpty)
    #expect(result.messages == ["no saved account has the tag nightly"])
  }

  @Test func theBackendNarrowsTheTag() {
    let result = world.run("list", "--tag", "qa", "--backend", "home")
    #expect(result.status == .success)
    #expect(result.output.isEmpty)
    #expect(result.messages == ["no saved account on backend 'home' has the tag qa"])
  }

  @Test func aBadTagIsAUsageError() {
    let result = world.run("list", "--tag", "q a")
    #expect(result.status == .usage)
    #expect(result.output.isEmpty)
    #expect(result.error?.message == "'q a' is not a valid tag")
  }

  @Test func namesPrintsEachAccountAsCommandsTakeItAndNothingElse() {
    let result = world.run("list", "--names")
    #expect(result.status == .success)
    #expect(result.output == "me@home\nqa1@corp\nqa2@corp\n", "\(result.output)")
    #expect(result.messages.isEmpty)
    let tagged = world.run("list", "--names", "--tag", "qa", "--backend", "corp")
    #expect(tagged.output == "qa1@corp\nqa2@corp\n", "\(tagged.output)")
    let none = world.run("list", "--names", "--tag", "nightly")
    #expect(none.status == .success && none.output.isEmpty && none.messages.isEmpty, "\(none)")
  }

  @Test func namesAndJSONAreAUsageError() {
    let result = world.run("list", "--names", "--json")
    #expect(result.status == .usage)
    #expect(result.output.isEmpty)
    #expect(result.error?.message == "--json and --names are two forms of the list")
  }
}
