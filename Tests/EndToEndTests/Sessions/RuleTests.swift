import Foundation
import TestSupport
import Testing

/// Directory rules (SPEC §3) with the built binary: the physical current directory decides,
/// `which` says why, `prompt` stays quiet, and `token` and `request` follow the rule.
@Suite(.serialized, .blocking) struct RuleTests {
  @Test func twoRulesWhichFromASymlinkedSubdirectoryAndThePrompt() throws {
    let world = try Fixture.ruledHome()
    defer { world.close() }
    let sandbox = world.sandbox
    let home = world.home
    try sandbox.ok(["switch", "bob"])
    // A relative DIR is resolved against the current directory; a symlink is stored physical.
    let added = try sandbox.ok(["rule", "add", "link", "alice"], in: home)
    #expect(added.standardError == "rule: ~/work/corp uses alice@corp\n", "\(added)")
    try sandbox.ok(["rule", "add", "\(home)/oss", "bob@corp"])
    let config = try sandbox.configJSON()
    #expect(config["rules"] as? [String: String] == ["\(home)/work/corp": "alice@corp", "\(home)/oss": "bob@corp"])
    #expect(try sandbox.ok(["rules"]).standardOutput == "DIRECTORY    ACCOUNT\n~/work/corp  alice@corp\n~/oss        bob@corp\n")

    let inside = "\(home)/link/api"
    let explained = try sandbox.ok(["which", "--explain"], in: inside)
    #expect(
      explained.standardOutput
        == "alice@corp  (rule ~/work/corp; ACCOUNTS_ACCOUNT unset; the auto-login slot holds bob@corp)\n",
      "\(explained)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(sandbox.ok(["which", "--json"], in: inside).standardOutput.utf8))
        as? [String: Any])
    #expect(json["account"] as? String == "alice@corp")
    #expect(json["source"] as? String == "rule")
    #expect(json["rule"] as? String == "\(home)/work/corp")
    #expect(json["environment"] is NSNull)
    #expect(json["slot"] as? String == "bob@corp")

    // Earlier steps still win inside a rule.
    let fromVariable = try sandbox.ok(["which", "--explain"], environment: ["ACCOUNTS_ACCOUNT": "bob"], in: inside)
    #expect(
      fromVariable.standardOutput
        == "bob@corp  (ACCOUNTS_ACCOUNT=bob; rule ~/work/corp gives alice@corp; the auto-login slot holds bob@corp)\n")
    #expect(try sandbox.ok(["which", "--account", "bob"], in: inside).standardOutput == "bob@corp\n")

    // A sibling whose name only starts like the rule's directory is not inside it.
    let sibling = try sandbox.ok(["which", "--explain"], in: "\(home)/work/corporate")
    #expect(sibling.standardOutput == "bob@corp  (the auto-login slot; ACCOUNTS_ACCOUNT unset; no rule for this directory)\n")

    let prompt = try sandbox.ok(["prompt"], in: inside)
    #expect(prompt.standardOutput == "alice\n" && prompt.standardError.isEmpty, "\(prompt)")
    #expect(try sandbox.ok(["prompt"], in: "\(home)/work/corporate").standardOutput == "bob\n")

    // A rule for the same directory replaces the old one and says so.
    let replaced = try sandbox.ok(["rule", "add", "\(home)/work/corp", "bob"])
    #expect(replaced.standardError == "rule: ~/work/corp uses bob@corp (it used alice@corp)\n", "\(replaced)")
    let removed = try sandbox.ok(["rule", "remove", "\(home)/link"])
    #expect(removed.standardError == "removed the rule for ~/work/corp (bob@corp)\n", "\(removed)")
    #expect(try sandbox.ok(["rules", "--json"]).standardOutput.contains("\"\(home)/oss\""))
  }

  @Test func tokenAndRequestFollowTheRule() throws {
    let world = try Fixture.ruledHome()
    defer { world.close() }
    let sandbox = world.sandbox
    let home = world.home
    try sandbox.ok(["switch", "bob"])
    try sandbox.ok(["rule", "add", "\(home)/work/corp", "alice"])
    _ = try world.seen()
    let token = try sandbox.ok(["token", "--json"], in: "\(home)/link/api")
    #expect(token.standardOutput.contains("\"account\": \"alice@corp\""), "\(token)")
    #expect(try world.seen() == ["login"], "alice had no session: the rule's account logged in")
    let reply = try sandbox.ok(["request", "GET", "me"], in: "\(home)/work/corp/api")
    let body = try #require(try JSONSerialization.jsonObject(with: Data(reply.standardOutput.utf8)) as? [String: Any])
    #expect(body["userId"] as? Int == 1001, "the rule picked alice, not the slot's bob: \(body)")
    let outside = try sandbox.ok(["request", "GET", "me"], in: "\(home)/oss")
    #expect(outside.standardOutput.contains("1002"), "outside the rule the slot's bob: \(outside)")
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  @Test func aRuleNamingARemovedAccountFailsClearlyAndThePromptStaysQuiet() throws {
    let world = try Fixture.ruledHome()
    defer { world.close() }
    let sandbox = world.sandbox
    let home = world.home
    try sandbox.ok(["switch", "bob"])
    try sandbox.ok(["rule", "add", "\(home)/work/corp", "alice"])
    let removed = try sandbox.ok(["remove", "alice@corp"])
    #expect(removed.standardError.contains("the rule for ~/work/corp still names alice@corp"), "\(removed)")
    #expect(try sandbox.ok(["rules"]).standardOutput.contains("alice@corp (not saved)"))

    let token = try sandbox.run(["token"], in: "\(home)/work/corp")
    #expect(token.status == 3, "not the slot's bob: \(token)")
    #expect(token.standardOutput.isEmpty)
    #expect(
      token.standardError.hasPrefix("accounts: the rule for \(home)/work/corp names alice@corp, which is no longer saved;"),
      "\(token)")
    let which = try sandbox.run(["which", "--explain"], in: "\(home)/work/corp")
    #expect(which.status == 3 && which.standardError.contains("no longer saved"), "\(which)")

    let prompt = try sandbox.run(["prompt"], in: "\(home)/work/corp")
    #expect(prompt.status == 3 && prompt.standardOutput.isEmpty && prompt.standardError.isEmpty, "\(prompt)")
    let debug = try sandbox.run(["prompt"], environment: ["ACCOUNTS_DEBUG": "1"], in: "\(home)/work/corp")
    #expect(debug.standardError.contains("no longer saved"), "\(debug)")

    // No account at all: nothing, exit 0; `which` gives the usual usage error.
    try sandbox.ok(["logout", "bob"])
    let nothing = try sandbox.run(["prompt"], in: "\(home)/oss")
    #expect(nothing.status == 0 && nothing.standardOutput.isEmpty && nothing.standardError.isEmpty, "\(nothing)")
    let none = try sandbox.run(["which"], in: "\(home)/oss")
    #expect(none.status == 2 && none.standardError.contains("no account given"), "\(none)")
  }

  @Test func thePromptMarksAnExpiredToken() throws {
    let world = try Fixture.ruledHome(tokenLifetime: 60)
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["switch", "alice"])
    #expect(try sandbox.ok(["prompt"]).standardOutput == "alice\n")
    #expect(try sandbox.ok(["prompt"], environment: ["ACCOUNTS_TEST_CLOCK_OFFSET": "30"]).standardOutput == "alice\n")
    #expect(try sandbox.ok(["prompt"], environment: ["ACCOUNTS_TEST_CLOCK_OFFSET": "61"]).standardOutput == "alice!\n")
  }

  @Test func hostileDirectoriesAndNamesAreRefusedWithAFix() throws {
    let world = try Fixture.ruledHome()
    defer { world.close() }
    let sandbox = world.sandbox
    let home = world.home
    let missing = try sandbox.run(["rule", "add", "\(home)/nowhere", "alice"])
    #expect(missing.status == 2 && missing.standardError.contains("no directory '\(home)/nowhere'; create it first"), "\(missing)")
    let odd = "\(home)/odd\ndir\u{1B}[31m"
    try FileManager.default.createDirectory(atPath: odd, withIntermediateDirectories: true)
    let refused = try sandbox.run(["rule", "add", odd, "alice"])
    #expect(refused.status == 2, "\(refused)")
    #expect(refused.standardError.contains("odd\\u{a}dir\\u{1b}[31m"), "printed safely: \(refused)")
    #expect(!refused.standardError.dropLast().contains("\n"), "one line")
    let typo = try sandbox.run(["rule", "add", "\(home)/oss", "alcie"])
    #expect(typo.status == 3 && typo.standardError.contains("did you mean 'alice'?"), "\(typo)")
    let file = "\(home)/oss/file"
    FileManager.default.createFile(atPath: file, contents: Data())
    #expect(try sandbox.run(["rule", "add", file, "alice"]).status == 2)
    #expect(try sandbox.configJSON()["rules"] == nil, "nothing was stored")
    let unknown = try sandbox.run(["rule", "remove", "\(home)/oss"])
    #expect(unknown.status == 2 && unknown.standardError.contains("no rule for"), "\(unknown)")
  }

  /// A working directory deleted under a rule's directory still gets the rule's account, by the
  /// path the kernel recorded for it (physical, as rules are, even when reached through a
  /// symlink); `which --explain` says so. One deleted outside every rule gets the slot's
  /// account.
  @Test func aDeletedWorkingDirectoryKeepsItsRule() throws {
    let world = try Fixture.ruledHome()
    defer { world.close() }
    let sandbox = world.sandbox
    let home = world.home
    try sandbox.ok(["switch", "bob"])
    try sandbox.ok(["rule", "add", "\(home)/work/corp", "alice"])
    /// `accounts ARGUMENTS` run in `directory`, deleted by the shell that enters it.
    func inDeleted(_ directory: String, _ arguments: [String]) throws -> ProcessResult {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      return try runProcess(
        "/bin/sh", ["-c", #"cd "$1" && rmdir "$(pwd -P)" && shift && exec "$0" "$@""#, PackagePaths.accounts, directory] + arguments,
        environment: sandbox.environment, timeout: 60)
    }
    let explained = try inDeleted("\(home)/work/corp/api/gone", ["which", "--explain"])
    #expect(explained.status == 0, "\(explained)")
    #expect(
      explained.standardOutput
        == "alice@corp  (rule ~/work/corp, for the deleted directory ~/work/corp/api/gone; ACCOUNTS_ACCOUNT unset; the auto-login slot holds bob@corp)\n",
      "\(explained)")
    let viaLink = try inDeleted("\(home)/link/api/gone", ["which"])
    #expect(viaLink.standardOutput == "alice@corp\n", "\(viaLink)")
    let outside = try inDeleted("\(home)/oss/gone", ["which", "--explain"])
    #expect(
      outside.standardOutput
        == "bob@corp  (the auto-login slot; ACCOUNTS_ACCOUNT unset; no rule for the deleted directory ~/oss/gone)\n",
      "\(outside)")
    let json = try inDeleted("\(home)/work/corp/gone", ["which", "--json"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
    #expect(object["account"] as? String == "alice@corp" && object["rule"] as? String == "\(home)/work/corp", "\(json)")
    _ = try world.seen()
    let token = try inDeleted("\(home)/work/corp/api/gone", ["token"])
    #expect(token.status == 0, "\(token)")
    #expect(try world.seen() == ["login"], "alice logged in, as the rule says")
  }
}

extension Fixture {
  /// alice (123456) and bob (hunter2), remembered, on corp (a session check), on a test backend
  /// whose tokens last `tokenLifetime` seconds; and in HOME ~/work/corp/api, ~/work/corporate,
  /// ~/oss, and ~/link -> ~/work/corp.
  static func ruledHome(tokenLifetime: Int? = nil) throws -> Fixture {
    let world = try Fixture().serving(tokenLifetime: tokenLifetime)
      .addingServedBackend("corp", settings: ["check_path=check"])
      .saving("alice", password: "123456").saving("bob", password: "hunter2")
    for directory in ["work/corp/api", "work/corporate", "oss"] {
      try FileManager.default.createDirectory(atPath: "\(world.home)/\(directory)", withIntermediateDirectories: true)
    }
    try FileManager.default.createSymbolicLink(atPath: "\(world.home)/link", withDestinationPath: "\(world.home)/work/corp")
    return world
  }
}
