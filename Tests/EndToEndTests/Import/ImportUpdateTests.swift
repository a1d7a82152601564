import Foundation
import TestSupport
import Testing

/// `import` into a book that already holds the accounts: a saved account is skipped unless
/// --update, which replaces what the file carries and keeps what it does not (a tags column
/// replaces the tags, an empty password or seed keeps the saved one); --dry-run writes nothing,
/// and a rerun of a finished import says only its summary.
@Suite(.blocking) struct ImportUpdateTests {
  @Test func savedAccountsAreSkippedUnlessUpdateAndADryRunWritesNothing() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "old-pw\n")
    try sandbox.ok(["tag", "alice", "old"])
    let path = try sandbox.file("account,password,tags\nalice,new-pw,fresh\nbob,bob-pw,\n")

    let index = try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath))
    let dry = try sandbox.ok(["import", path, "--update", "--dry-run", "--json"])
    #expect(dry.standardError == "\(path) (dry run, nothing written): imported 1, updated 1, skipped 0, failed 0\n")
    let planned = try #require(try JSONSerialization.jsonObject(with: Data(dry.standardOutput.utf8)) as? [[String: Any]])
    #expect(planned.map { $0["action"] as? String } == ["updated", "imported"])
    #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath)) == index, "a dry run writes nothing")

    let skipped = try sandbox.ok(["import", path])
    #expect(skipped.standardError == "\(path): imported 1, updated 0, skipped 1, failed 0\n", "\(skipped)")
    #expect(try sandbox.password("alice") == "old-pw\n")
    #expect(try sandbox.tagsByAccount() == ["alice@corp": ["old"], "bob@corp": []])

    let updated = try sandbox.ok(["import", path, "--update", "--tag", "pool"])
    #expect(updated.standardError == "\(path): imported 0, updated 2, skipped 0, failed 0\n", "\(updated)")
    #expect(try sandbox.password("alice") == "new-pw\n")
    #expect(try sandbox.tagsByAccount() == ["alice@corp": ["fresh", "pool"], "bob@corp": ["pool"]], "tags replaced")
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func updateReplacesTagsOnlyFromATagsColumnAndKeepsASeedTheRowLacks() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    for user in ["alice", "bob"] {
      try sandbox.ok(["add", user, "--remember", "--password-stdin"], stdin: "old-pw\n")
      try sandbox.ok(["tag", user, "old", "kept"])
    }
    try sandbox.ok(["otp", "set", "alice"], stdin: "JBSWY3DPEHPK3PXP\n")
    let code = try sandbox.ok(["otp", "alice", "--at", "1111111109"]).standardOutput
    let chrome = try sandbox.file("name,url,username,password\ncorp,https://corp.example,alice,chrome-pw\n", name: "c.csv")
    try sandbox.ok(["import", chrome, "--update", "--tag", "pool"])
    #expect(try sandbox.tagsByAccount()["alice@corp"] == ["kept", "old", "pool"], "no tags column: --tag is added")
    #expect(try sandbox.ok(["password", "alice"]).standardOutput == "chrome-pw\n")
    let own = try sandbox.file("account,password,otp\nalice,own-pw,\nbob,,\n", name: "own.csv")
    try sandbox.ok(["import", own, "--update"])
    #expect(try sandbox.tagsByAccount() == ["alice@corp": ["kept", "old", "pool"], "bob@corp": ["kept", "old"]])
    #expect(try sandbox.ok(["otp", "alice", "--at", "1111111109"]).standardOutput == code, "an empty otp keeps it")
    #expect(try sandbox.ok(["password", "bob"]).standardOutput == "old-pw\n", "an empty password keeps it")
    let tagged = try sandbox.file("account,tags\nalice,fresh\n", name: "tagged.csv")
    try sandbox.ok(["import", tagged, "--update", "--tag", "pool"])
    #expect(try sandbox.tagsByAccount()["alice@corp"] == ["fresh", "pool"], "a tags column replaces them")
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func aRerunOfAFinishedImportPrintsOnlyItsSummary() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let path = try sandbox.file("account,password\nalice,a-pw\nbob,b-pw\n")
    try sandbox.ok(["import", path])
    let again = try sandbox.ok(["import", path, "--json"])
    #expect(again.standardError == "\(path): imported 0, updated 0, skipped 2, failed 0\n", "\(again)")
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [[String: Any]])
    #expect(rows.map { $0["action"] as? String } == ["skipped", "skipped"], "--json keeps every row")
  }

  /// A row with a problem is never waved through because its account is saved: `--update`
  /// refuses the whole file, and with `--partial` that row is reported failed and the saved
  /// account left as it was.
  @Test func aProblemRowOfASavedAccountRefusesTheUpdate() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "old-pw\n")
    let path = try sandbox.file("account,password,tags,otp\nalice,new-pw,,not-a-seed!\nbob,bob-pw,,\n")
    let index = try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath))
    let refused = try sandbox.run(["import", path, "--update"])
    #expect(refused.status == 2, "\(refused)")
    #expect(refused.standardError.contains("\(path): line 2, field otp: "), "\(refused)")
    #expect(refused.standardError.hasSuffix("accounts: \(path): nothing imported: 1 row has problems; fix it, or import the other rows with --partial\n"), "\(refused)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath)) == index, "nothing written")
    #expect(try sandbox.password("alice") == "old-pw\n")

    let partial = try sandbox.run(["import", path, "--update", "--partial", "--json"])
    #expect(partial.status == 1, "\(partial)")
    #expect(partial.standardError.hasSuffix("\(path): imported 1, updated 0, skipped 0, failed 1\n"), "\(partial)")
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(partial.standardOutput.utf8)) as? [[String: Any]])
    #expect(rows.map { "\($0["account"] as? String ?? "-") \($0["action"] as? String ?? "-")" } == ["alice@corp failed", "bob@corp imported"])
    #expect(try sandbox.password("alice") == "old-pw\n", "the failed row changed nothing")
    #expect(try sandbox.invariantViolations() == [])
  }
}
