import Foundation
import TestSupport
import Testing

/// What a hostile review of `import` and `export` found (issue 18), with the built binary and
/// a real keyring: --update keeps what a file does not carry, backends must exist on the other
/// side, password managers' entries without a user, and an export that reads every secret
/// before it writes any.
@Suite(.blocking) struct ImportReviewTests {
  func sandbox(backends: [String] = ["corp"]) throws -> Sandbox {
    let sandbox = try Sandbox()
    for backend in backends { try sandbox.addBackend(backend) }
    return sandbox
  }

  func file(_ sandbox: Sandbox, _ text: String, name: String = "accounts.csv") throws -> String {
    let path = sandbox.keyring.root + "/" + name
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  func tags(_ sandbox: Sandbox) throws -> [String: [String]] {
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    var tags: [String: [String]] = [:]
    for entry in list { tags[entry["account"] as? String ?? "?"] = entry["tags"] as? [String] }
    return tags
  }

  func shell(_ sandbox: Sandbox, _ script: String) throws -> ProcessResult {
    try runProcess(
      "/bin/bash", ["-c", script],
      environment: sandbox.environment.merging(["ACCOUNTS": PackagePaths.accounts]) { $1 }, timeout: 30)
  }

  @Test func updateReplacesTagsOnlyFromATagsColumnAndKeepsASeedTheRowLacks() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    for user in ["alice", "bob"] {
      try sandbox.ok(["add", user, "--remember", "--password-stdin"], stdin: "old-pw\n")
      try sandbox.ok(["tag", user, "old", "kept"])
    }
    try sandbox.ok(["otp", "set", "alice"], stdin: "JBSWY3DPEHPK3PXP\n")
    let code = try sandbox.ok(["otp", "alice", "--at", "1111111109"]).standardOutput
    let chrome = try file(sandbox, "name,url,username,password\ncorp,https://corp,alice,chrome-pw\n", name: "c.csv")
    try sandbox.ok(["import", chrome, "--update", "--tag", "pool"])
    #expect(try tags(sandbox)["alice@corp"] == ["kept", "old", "pool"], "no tags column: --tag is added")
    #expect(try sandbox.ok(["password", "alice"]).standardOutput == "chrome-pw\n")
    let own = try file(sandbox, "account,password,otp\nalice,own-pw,\nbob,,\n", name: "own.csv")
    try sandbox.ok(["import", own, "--update"])
    #expect(try tags(sandbox) == ["alice@corp": ["kept", "old", "pool"], "bob@corp": ["kept", "old"]])
    #expect(try sandbox.ok(["otp", "alice", "--at", "1111111109"]).standardOutput == code, "an empty otp keeps it")
    #expect(try sandbox.ok(["password", "bob"]).standardOutput == "old-pw\n", "an empty password keeps it")
    let tagged = try file(sandbox, "account,tags\nalice,fresh\n", name: "tagged.csv")
    try sandbox.ok(["import", tagged, "--update", "--tag", "pool"])
    #expect(try tags(sandbox)["alice@corp"] == ["fresh", "pool"], "a tags column replaces them")
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func anExportIntoABookWithoutItsBackendsSaysToAddThem() throws {
    let source = try sandbox()
    defer { source.close() }
    try source.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n")
    let exported = try source.ok(["export", "--with-passwords"]).standardOutput
    let target = try sandbox(backends: [])
    defer { target.close() }
    let result = try target.run(["import", "-"], stdin: exported)
    #expect(result.status == 2, "\(result)")
    #expect(
      result.standardError.hasPrefix(
        "accounts: stdin: line 2: no backend 'corp'; add it first with `accounts backend add corp --adapter A` "
          + "(export does not carry backends)\n"), "\(result)")
  }

  @Test func passwordManagerEntriesWithoutAUserAreSkippedAndTheRestImported() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let keePassXC = """
      "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
      "Root/Wi-Fi","Office","","wifi-key","","","","0","",""
      "Root/QA","Corp","qa1","qa1-pw","","","","0","",""

      """
    let path = try file(sandbox, keePassXC)
    let result = try sandbox.run(["import", path])
    #expect(result.status == 0, "\(result)")
    #expect(
      result.standardError == "accounts: \(path): line 2: skipped: no user name\n"
        + "\(path): imported 1, updated 0, skipped 1, failed 0\n", "\(result)")
    #expect(try tags(sandbox) == ["qa1@corp": []])
    let own = try sandbox.run(["import", "-"], stdin: "account,password\n,pw\n")
    #expect(own.status == 2 && own.standardError.contains("line 2, field account: the user name is empty"), "\(own)")
  }

  /// One limit for every way a password comes in: `add --password-stdin` and a row of `import`.
  @Test func importTakesThePasswordsAddTakesAndRefusesTheOthersByField() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let longest = String(repeating: "p", count: 64 << 10)
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: longest + "\n")
    #expect(try sandbox.run(["add", "bob", "--remember", "--password-stdin"], stdin: longest + "q\n").status == 2)
    let result = try sandbox.run(["import", "-"], stdin: "account,password\ncarol,\(longest)\ndave,\(longest)q\n")
    #expect(result.status == 2, "\(result)")
    #expect(
      result.standardError.hasPrefix("accounts: stdin: line 3, field password: the password is longer than 64 KiB; "),
      "\(result.standardError.prefix(300))")
    #expect(!result.standardError.contains("pppp"))
    try sandbox.ok(["import", "-"], stdin: "account,password\ncarol,\(longest)\n")
    #expect(try sandbox.ok(["password", "carol"]).standardOutput == longest + "\n")
  }

  @Test func aRefusedFileIsBadInputAndPrintsOneLineAndNothingOnStdout() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    for text in ["account,password\nalice,\"unclosed\n", "", "user,pass\nalice,pw\n"] {
      let result = try sandbox.run(["import", "-", "--json"], stdin: text)
      #expect(result.status == 2, "\(result)")
      #expect(result.standardOutput == "", "\(result)")
      #expect(result.standardError.hasPrefix("accounts: stdin: "), "\(result)")
      #expect(result.standardError.split(separator: "\n").count == 1, "one line: \(result)")
    }
    let bad = try sandbox.run(["import", "-", "--json", "--partial"], stdin: "account,tags\nalice,bad/tag\nbob,\n")
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(bad.standardOutput.utf8)) as? [[String: Any]])
    #expect(rows.map { $0["account"] as? String } == ["alice@corp", "bob@corp"], "\(bad)")
    #expect(rows.map { $0["action"] as? String } == ["failed", "imported"])
  }

  @Test func aRerunOfAFinishedImportPrintsOnlyItsSummary() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let path = try file(sandbox, "account,password\nalice,a-pw\nbob,b-pw\n")
    try sandbox.ok(["import", path])
    let again = try sandbox.ok(["import", path, "--json"])
    #expect(again.standardError == "\(path): imported 0, updated 0, skipped 2, failed 0\n", "\(again)")
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [[String: Any]])
    #expect(rows.map { $0["action"] as? String } == ["skipped", "skipped"], "--json keeps every row")
  }

  @Test func exportWarnsOfAPasswordTheKeyringLostAndExitsThreeWithTheWholeOutput() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "a-pw\n")
    try sandbox.ok(["add", "bob", "--remember", "--password-stdin"], stdin: "b-pw\n")
    let cleared = try runProcess(
      "/usr/bin/secret-tool", ["clear", "backend", "corp", "account", "alice", "kind", "password"],
      environment: sandbox.environment, timeout: 20)
    #expect(cleared.status == 0)
    let result = try sandbox.run(["export", "--with-passwords"])
    #expect(result.status == 3, "\(result)")
    #expect(
      result.standardOutput == "account,password,backend,tags,otp\r\nalice@corp,,corp,,\r\nbob@corp,b-pw,corp,,\r\n",
      "the whole output, alice's password empty")
    #expect(
      result.standardError.hasSuffix(
        "accounts: warning: alice@corp's remembered password is not in the keyring; its password field is empty\n"),
      "\(result)")
  }

  @Test func exportWritesNothingWhenASecretCannotBeRead() throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    for user in ["alice", "bob"] { try sandbox.ok(["add", user, "--remember", "--password-stdin"], stdin: "pw\n") }
    let replaced = try shell(
      sandbox,
      #"printf 'b\377d' | secret-tool store --label=x xdg:schema io.accounts.Secret backend corp account bob kind password"#)
    #expect(replaced.status == 0, "\(replaced)")
    let notText = try sandbox.run(["export", "--with-passwords"])
    #expect(notText.status == 1, "\(notText)")
    #expect(notText.standardOutput == "", "\(notText)")
    #expect(notText.standardError.contains("the password of bob@corp is not UTF-8 text"), "\(notText)")

    try sandbox.ok(["lock"])
    let locked = try sandbox.run(["export", "--with-passwords"], timeout: 30)
    #expect(locked.status == 7, "\(locked)")
    #expect(locked.standardOutput == "", "\(locked)")
  }
}

/// `import` tells its progress on a terminal when it takes more than a second, and clears the
/// line at the end; never when stderr is no terminal.
@Suite(.blocking) struct ImportProgressTests {
  static func rows(_ count: Int) -> String {
    "account,password,backend,tags,otp\n" + (0..<count).map { "user\($0),pw-\($0),corp,pool,\n" }.joined()
  }

  @Test func onATerminalALongImportSaysHowFarItIsAndClearsTheLine() throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    try sandbox.addBackend("corp")
    let file = sandbox.keyring.root + "/pool.csv"
    // 200 rows: seconds on gnome-keyring, which rewrites its file on every store.
    try Self.rows(200).write(toFile: file, atomically: true, encoding: .utf8)
    let shown = try runInTerminal(PackagePaths.accounts, ["import", file], environment: sandbox.environment, steps: [], timeout: 120)
    #expect(shown.status == 0, "\(shown)")
    #expect(shown.standardOutput.contains("\rimporting "), "\(shown.standardOutput.suffix(300))")
    #expect(shown.standardOutput.contains(" of 200"), "\(shown.standardOutput.suffix(300))")
    #expect(shown.standardOutput.contains("\r\u{1B}[K"), "the line is cleared at the end")
    #expect(shown.standardOutput.contains("imported 200, updated 0, skipped 0, failed 0"))
    #expect(!shown.standardOutput.contains("pw-1"), "no password on the terminal")
    try sandbox.ok(["remove", "user0"])
    let piped = try sandbox.run(["import", file])
    #expect(piped.status == 0, "\(piped)")
    #expect(!piped.standardError.contains("importing"), "no progress off a terminal: \(piped.standardError)")
  }
}
