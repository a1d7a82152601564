import Foundation
import TestSupport
import Testing

/// `tag`, `untag` and `list --tag` with the built binary against a real keyring: tags live in
/// the index, change under its lock, and survive every other change of it.
@Suite(.blocking) struct TagCommandTests {
  func tags(_ sandbox: Sandbox, _ user: String) throws -> [String]? {
    let accounts = try sandbox.indexJSON()["accounts"] as? [[String: Any]] ?? []
    return accounts.first { $0["user"] as? String == user }?["tags"] as? [String]
  }

  func listed(_ sandbox: Sandbox, _ arguments: [String]) throws -> [String: [String]] {
    let list = try #require(try sandbox.json(["list", "--json"] + arguments) as? [[String: Any]])
    var tags: [String: [String]] = [:]
    for entry in list { tags[entry["user"] as? String ?? "?"] = entry["tags"] as? [String] }
    return tags
  }

  @Test func tagUntagAndListByTags() throws {
    let world = try Fixture().addingBackend("corp").saving("bob").saving("qa1").saving("qa2")
    defer { world.close() }
    let sandbox = world.sandbox
    let before = try sandbox.ok(["list"]).standardOutput
    #expect(!before.contains("TAGS"), "no tags anywhere: list looks as it always did")

    let tagged = try sandbox.ok(["tag", "qa1", "smoke", "qa"])
    #expect(tagged.standardOutput == "", "data only with --json")
    #expect(tagged.standardError == "qa1@corp: tags qa, smoke\n")
    #expect(try tags(sandbox, "qa1") == ["qa", "smoke"], "sorted in the index")
    let index = try String(contentsOfFile: sandbox.indexPath, encoding: .utf8)
    try sandbox.ok(["tag", "qa1", "qa", "smoke", "qa"])
    #expect(try String(contentsOfFile: sandbox.indexPath, encoding: .utf8) == index, "tagging again changes nothing")
    try sandbox.ok(["tag", "qa2@corp", "qa"])

    #expect(try listed(sandbox, []) == ["bob": [], "qa1": ["qa", "smoke"], "qa2": ["qa"]])
    #expect(try listed(sandbox, ["--tag", "qa"]) == ["qa1": ["qa", "smoke"], "qa2": ["qa"]])
    #expect(try listed(sandbox, ["--tag", "qa", "--tag", "smoke"]) == ["qa1": ["qa", "smoke"]], "every tag must match")
    #expect(try listed(sandbox, ["--tag", "smoke", "--tag", "nightly"]) == [:])
    #expect(try listed(sandbox, ["--tag", "QA"]) == [:], "tags compare byte for byte")

    let table = try sandbox.ok(["list", "--tag", "qa"]).standardOutput.split(separator: "\n")
    #expect(table.count == 3, "\(table)")
    #expect(table[0].hasPrefix("  ACCOUNT") && table[0].hasSuffix("  TAGS"), "\(table)")
    #expect(table[1].hasPrefix("  qa1 ") && table[1].hasSuffix(" qa,smoke"), "\(table)")
    #expect(table[2].hasPrefix("  qa2 ") && table[2].hasSuffix(" qa"), "\(table)")
    let all = try sandbox.ok(["list"]).standardOutput.split(separator: "\n")
    #expect(all[1].hasPrefix("  bob ") && all[1].hasSuffix("never       -"), "no tags shows -: \(all)")
    let none = try sandbox.ok(["list", "--tag", "nightly"])
    #expect(none.standardOutput == "" && none.standardError.contains("no saved account has the tag nightly"), "\(none)")

    let untagged = try sandbox.ok(["untag", "qa1", "smoke", "never-had"])
    #expect(untagged.standardError == "qa1@corp: tags qa\n")
    let again = try sandbox.ok(["untag", "qa1", "smoke", "--json"])
    #expect(again.standardOutput.contains("\"tags\": [\n    \"qa\"\n  ]"), "untag is idempotent: \(again)")
    try sandbox.ok(["untag", "qa2", "qa"])
    #expect(try tags(sandbox, "qa2") == nil, "an account without tags has no tags member")
    #expect(try listed(sandbox, ["--tag", "qa"]) == ["qa1": ["qa"]])
  }

  /// Each bad form is a usage error naming the tag and the rule, and nothing is written, not
  /// even the good tags beside it.
  @Test func badTagsAndUnknownAccountsChangeNothing() throws {
    let world = try Fixture().addingBackend("corp").saving("bob").saving("qa1").saving("qa2")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["tag", "qa1", "qa"])
    let index = try String(contentsOfFile: sandbox.indexPath, encoding: .utf8)
    for (tag, named) in [
      ("", "the tag is empty"), ("two words", "'two words'"), ("a/b", "'a/b'"), ("ünï", "'ünï'"),
      ("标签", "'标签'"), ("-x", "'-x'"), ("x\u{1B}[2J", "'x\\u{1b}[2J'"), (String(repeating: "t", count: 65), "'ttt"),
    ] {
      for command in ["tag", "untag"] {
        let result = try sandbox.run([command, "qa1", "good", "--", tag])
        #expect(result.status == 2, "\(command) \(tag.debugDescription): \(result)")
        #expect(result.standardError.hasPrefix("accounts: ") && result.standardError.contains(named), "\(result)")
        #expect(result.standardError.contains("ASCII letters, digits, '-', '_' and '.'"), "\(result)")
        #expect(result.standardError.split(separator: "\n").count == 1, "one line: \(result)")
      }
      let list = try sandbox.run(["list", "--tag", tag])
      #expect(list.status == 2 && list.standardError.contains(named), "list --tag \(tag.debugDescription): \(list)")
    }
    #expect(try String(contentsOfFile: sandbox.indexPath, encoding: .utf8) == index)

    let unknown = try sandbox.run(["tag", "carol", "qa"])
    #expect(unknown.status == 3 && unknown.standardError.contains("no account 'carol'"), "\(unknown)")
    let ambiguous = try sandbox.run(["untag", "qa", "qa"])
    #expect(ambiguous.status == 2 && ambiguous.standardError.contains("could be"), "\(ambiguous)")
    let missing = try sandbox.run(["tag", "qa1"])
    #expect(missing.status == 2, "at least one TAG: \(missing)")
    #expect(try String(contentsOfFile: sandbox.indexPath, encoding: .utf8) == index)
  }

  /// Twenty `tag` processes on one account, all waiting on the index's lock at once: each
  /// re-reads the index under it, so no tag is lost.
  @Test func twentyConcurrentTagsOnOneAccountLoseNothing() throws {
    let world = try Fixture().addingBackend("corp").saving("bob").saving("qa1").saving("qa2")
    defer { world.close() }
    let sandbox = world.sandbox
    let lockPath = sandbox.indexPath + ".lock"
    let lock = try HeldLock(lockPath)
    let writers = try (0..<20).map { try BackgroundAccounts(sandbox, ["tag", "qa1", "t\($0)"]) }
    for writer in writers { try writer.waitUntilWaitingFor(lockPath: lockPath) }
    lock.release()
    for writer in writers {
      let result = try writer.finish()
      #expect(result.status == 0, "\(result)")
    }
    #expect(try tags(sandbox, "qa1") == (0..<20).map { "t\($0)" }.sorted())
  }

  /// An account removed while `tag` waits for the index's lock (after it resolved the name)
  /// stays removed: `tag` says there is no such account, and writes nothing.
  @Test func anAccountRemovedWhileTagWaitsStaysRemoved() throws {
    let world = try Fixture().addingBackend("corp").saving("bob").saving("qa1").saving("qa2")
    defer { world.close() }
    let sandbox = world.sandbox
    let lockPath = sandbox.indexPath + ".lock"
    let lock = try HeldLock(lockPath)
    let writer = try BackgroundAccounts(sandbox, ["tag", "qa1", "qa"])
    try writer.waitUntilWaitingFor(lockPath: lockPath)
    // What `accounts remove qa1` does to the index, done under the lock the test holds.
    var index = try sandbox.indexJSON()
    index["accounts"] = (index["accounts"] as? [[String: Any]] ?? []).filter { $0["user"] as? String != "qa1" }
    let without = try JSONSerialization.data(withJSONObject: index, options: [.prettyPrinted, .sortedKeys])
    try without.write(to: URL(fileURLWithPath: sandbox.indexPath))
    lock.release()
    let result = try writer.finish()
    #expect(result.status == 3 && result.standardError.contains("no account 'qa1'"), "\(result)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath)) == without, "nothing written")
    #expect(try listed(sandbox, []) == ["bob": [], "qa2": []])
  }

  /// Logins, password changes, switches and logouts rewrite the account's entry in the index:
  /// its tags stay through each of them.
  @Test func tagsSurviveLoginPasswdSwitchAndLogout() throws {
    let world = try Fixture().serving()
      .addingServedBackend("corp", settings: ["check_path=check", "logout_path=logout"])
      .saving("alice", password: "123456", tags: ["qa", "smoke"]).saving("bob", password: "hunter2")
    defer { world.close() }
    let sandbox = world.sandbox
    for step in [
      ["login", "alice", "--auto"], ["passwd", "alice", "--password-stdin"], ["switch", "bob"], ["switch", "-"],
      ["current", "--check"], ["logout", "alice"],
    ] {
      try sandbox.ok(step, stdin: "123456\n")
      #expect(try tags(sandbox, "alice") == ["qa", "smoke"], "after \(step)")
    }
    #expect(try sandbox.invariantViolations() == [])
  }

  /// An index written before tags existed reads as no tags; tagging it keeps what this
  /// version does not know.
  @Test func anIndexFromTheVersionBeforeTagsStillReads() throws {
    let world = try Fixture().addingBackend("corp").saving("bob").saving("qa1").saving("qa2")
    defer { world.close() }
    let sandbox = world.sandbox
    try """
      {"version": 1, "auto_login": null, "previous_auto_login": null, "sync": {"peer": "laptop"},
       "accounts": [{"user": "qa1", "backend": "corp", "remembered": false, "added_at": "2026-11-22T07:00:00Z",
         "last_login": null, "token": null, "session": {}, "colour": "red"}]}
      """.write(toFile: sandbox.indexPath, atomically: false, encoding: .utf8)
    #expect(try listed(sandbox, []) == ["qa1": []])
    try sandbox.ok(["tag", "qa1", "qa"])
    #expect(try listed(sandbox, ["--tag", "qa"]) == ["qa1": ["qa"]])
    let index = try sandbox.indexJSON()
    #expect((index["sync"] as? [String: Any])?["peer"] as? String == "laptop")
    #expect((index["accounts"] as? [[String: Any]])?.first?["colour"] as? String == "red")
  }
}
