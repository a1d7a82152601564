import Foundation
import TestSupport
import Testing

/// `import` with the built binary against a real keyring: accounts' own format and password
/// managers' exports, hostile fields, the whole file checked before anything is written (or,
/// with --partial, the good rows alone), and FILE completed by the shell's own completion.
@Suite(.blocking) struct ImportTests {
  @Test func hostileFieldsOfAccountsOwnFormatAreImportedExactly() throws {
    let world = try Fixture().addingBackend("corp").addingBackend("lab")
    defer { world.close() }
    let sandbox = world.sandbox
    // A BOM, CRLF, spaces around the header's names, quoted fields with commas, doubled quotes
    // and a newline, an e-mail address as the user, and no newline after the last row.
    let csv =
      "\u{FEFF}Account , PASSWORD,backend,tags,otp\r\n"
      + "alice,\"pw,with \"\"quotes\"\"\r\nand a line\",corp,qa smoke,\r\n"
      + "bob@example.com,plain-pw,lab,,\r\n"
      + "\r\n"
      + "carol@lab,\"\",,nightly,\r\n"
      + "dave,\"\"\"\",,,"
    let path = try sandbox.file(csv)
    let result = try sandbox.ok(["import", path, "--backend", "corp", "--tag", "pool"])
    #expect(result.standardError == "\(path): imported 4, updated 0, skipped 0, failed 0\n", "\(result)")
    #expect(result.standardOutput == "")
    #expect(
      try sandbox.tagsByAccount() == [
        "alice@corp": ["pool", "qa", "smoke"], "bob@example.com@lab": ["pool"], "carol@lab": ["nightly", "pool"],
        "dave@corp": ["pool"],
      ])
    #expect(try sandbox.password("alice") == "pw,with \"quotes\"\r\nand a line\n")
    #expect(try sandbox.password("bob@example.com") == "plain-pw\n")
    #expect(try sandbox.password("dave") == "\"\n")
    let carol = try sandbox.run(["password", "carol"])
    #expect(carol.status == 3, "an empty password is none: \(carol)")
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func aBadRowWritesNothingAndNamesItsLineButNeverAPassword() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let csv = """
      account,password,backend,tags,otp
      alice,alice-secret,,,
      "bad user",bad-secret,,,
      erin,erin-secret,nope,,
      alice,other-secret,,,
      otto,otto-secret,,,otpauth://totp/corp:otto?secret=JBSW1Y3DPEHPK3PXP
      frank,frank-secret,,,

      """
    let path = try sandbox.file(csv)
    for dryRun in [[], ["--dry-run"]] {
      let result = try sandbox.run(["import", path] + dryRun)
      #expect(result.status == 2, "\(result)")
      let lines = result.standardError.split(separator: "\n").map(String.init)
      #expect(
        lines == [
          "accounts: \(path): line 2, field account: alice@corp is on lines 2 and 5; keep one of them",
          "accounts: \(path): line 3, field account: the user name 'bad user' contains a space; user names may hold "
            + "letters and digits of any script and . _ - @ +, at most 256, not starting with '-'",
          "accounts: \(path): line 4: no backend 'nope'; add it first with `accounts backend add nope --adapter A` "
            + "(export does not carry backends)",
          "accounts: \(path): line 5, field account: alice@corp is on lines 2 and 5; keep one of them",
          "accounts: \(path): line 6, field otp: not a TOTP seed: character 5 of the seed is not base32 (A-Z, 2-7); "
            + "give the otpauth://totp/... URI of the site's QR code, or its base32 seed (letters A-Z and digits 2-7)",
          "accounts: \(path): nothing imported: 5 rows have problems; fix them, or import the other rows with --partial",
        ], "\(result)")
      #expect(!result.standardError.contains("secret") && !result.standardError.contains("JBSW1Y3DP"))
    }
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.isEmpty == true)
    #expect(try sandbox.allKeyringItems() == [])

    // --partial: the good row goes in, every other is reported, and the exit status says so.
    let partial = try sandbox.run(["import", path, "--partial", "--json"])
    #expect(partial.status == 1, "\(partial)")
    #expect(partial.standardError.hasSuffix("\(path): imported 1, updated 0, skipped 0, failed 5\n"), "\(partial)")
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(partial.standardOutput.utf8)) as? [[String: Any]])
    #expect(rows.map { $0["line"] as? Int } == [2, 3, 4, 5, 6, 7])
    #expect(rows.map { $0["action"] as? String } == ["failed", "failed", "failed", "failed", "failed", "imported"])
    #expect(rows.map { $0["account"] as? String } == ["alice@corp", nil, nil, "alice@corp", "otto@corp", "frank@corp"])
    #expect(rows[3]["error"] as? String == "field account: alice@corp is on lines 2 and 5")
    #expect(!partial.standardOutput.contains("secret"))
    #expect(try sandbox.tagsByAccount() == ["frank@corp": []])
    #expect(try sandbox.password("frank") == "frank-secret\n")
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func fieldsThatCannotBePasswordsRefuseTheFileByLine() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let cases: [(Data, String)] = [
      (Data("account,password\nalice,ok\nbob,a\u{0}b\n".utf8),
       "line 3, field password: a NUL byte; remove it: a CSV file is text"),
      (Data("account,password\nalice,ok\nbob,".utf8) + Data([0xC3, 0x28, 0x0A]),
       "line 3, field password: bytes that are not UTF-8; save the file as UTF-8"),
      (Data("account,password\nalice,\"unclosed\n".utf8), "line 2, field password: a quoted field is never closed"),
      (Data("user,pass\nalice,pw\n".utf8), "its first line (2 columns) is not a header accounts knows"),
    ]
    for (bytes, message) in cases {
      let path = try sandbox.file(bytes)
      let result = try sandbox.run(["import", path])
      #expect(result.status == 2, "bad input, as a bad row: \(result)")
      #expect(result.standardError.hasPrefix("accounts: \(path): \(message)"), "\(result)")
      #expect(result.standardError.split(separator: "\n").count == 1)
    }
    let missing = try sandbox.run(["import", sandbox.keyring.root + "/none.csv"])
    #expect(missing.status == 1 && missing.standardError.contains("cannot open"), "\(missing)")
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.isEmpty == true)
    #expect(try sandbox.allKeyringItems() == [])
  }

  /// One byte over the cap is refused before anything is read further or written. (The cap's
  /// other side, a file of exactly the limit read whole, is pinned by the reader's unit test with
  /// a small limit: parsing 64 MiB takes most of a minute in a debug build.)
  @Test func aFileOverSixtyFourMiBIsRefused() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let row = Data("alice,alice-pw\n".utf8)
    var bytes = Data("account,password\n".utf8)
    bytes.append(Data(repeating: 0x0A, count: (64 << 20) + 1 - bytes.count - row.count))
    bytes.append(row)
    let tooLarge = try sandbox.file(bytes, name: "large.csv")
    let large = try sandbox.run(["import", tooLarge], timeout: 120)
    #expect(large.status == 2, "\(large)")
    #expect(large.standardError.hasPrefix("accounts: \(tooLarge): it is larger than 64 MiB"), "\(large)")
    #expect((try sandbox.json(["list", "--json"]) as? [[String: Any]])?.isEmpty == true, "nothing imported")
  }

  @Test func passwordManagerExportsAreReadByTheirHeaders() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let keePassXC = """
      "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
      "Root/QA","Corp","qa1","qa1-pw","https://corp.example","","","0","2026-01-01T00:00:00Z","2026-01-01T00:00:00Z"
      "Root/Recycle Bin","Old","qa0","qa0-pw","","","","0","2026-01-01T00:00:00Z","2026-01-01T00:00:00Z"

      """
    let path = try sandbox.file(keePassXC)
    let result = try sandbox.ok(["import", path, "--tag", "qa"])
    #expect(
      result.standardError == "accounts: \(path): line 3: skipped: in KeePassXC's Recycle Bin\n"
        + "\(path): imported 1, updated 0, skipped 1, failed 0\n", "\(result)")
    let chrome = try sandbox.file("name,url,username,password,note\ncorp,https://corp.example,qa2,qa2-pw,\n", name: "c.csv")
    try sandbox.ok(["import", "-"], stdin: try String(contentsOfFile: chrome, encoding: .utf8))
    #expect(try sandbox.tagsByAccount() == ["qa1@corp": ["qa"], "qa2@corp": []])
    #expect(try sandbox.password("qa2") == "qa2-pw\n")
  }

  @Test func passwordManagerEntriesWithoutAUserAreSkippedAndTheRestImported() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let keePassXC = """
      "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
      "Root/Wi-Fi","Office","","wifi-key","","","","0","",""
      "Root/QA","Corp","qa1","qa1-pw","","","","0","",""

      """
    let path = try sandbox.file(keePassXC)
    let result = try sandbox.run(["import", path])
    #expect(result.status == 0, "\(result)")
    #expect(
      result.standardError == "accounts: \(path): line 2: skipped: no user name\n"
        + "\(path): imported 1, updated 0, skipped 1, failed 0\n", "\(result)")
    #expect(try sandbox.tagsByAccount() == ["qa1@corp": []])
    let own = try sandbox.run(["import", "-"], stdin: "account,password\n,pw\n")
    #expect(own.status == 2 && own.standardError.contains("line 2, field account: the user name is empty"), "\(own)")
  }

  /// One limit for every way a password comes in: `add --password-stdin` and a row of `import`.
  @Test func importTakesThePasswordsAddTakesAndRefusesTheOthersByField() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
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
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
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

  /// FILE is completed by the shell's own file completion.
  @Test(arguments: CompletionDriver.Shell.allCases) func importCompletesFileNames(_ shell: CompletionDriver.Shell) throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    FileManager.default.createFile(atPath: driver.directory + "/qa-pool.csv", contents: Data())
    // An absolute path: fish's completion runs in the test's own working directory.
    let offered = try driver.offered(shell, "accounts import \(driver.directory)/qa-p")
    #expect(offered.count == 1 && offered.first?.hasSuffix("qa-pool.csv") == true, "\(shell): \(offered)")
    #expect(try driver.offered(shell, "accounts import --tag ") == [], "\(shell): tags, none yet")
  }

  /// A vault covering several backends: each row goes to the backend whose base_url host is its
  /// URL's host; a row whose host is no backend's is named on its URL column and nothing is
  /// written, unless --partial; --backend wins over the URL.
  @Test func rowsGoToTheBackendTheirURLNames() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.addBackend("corp", settings: ["base_url=https://corp.example/api"])
    try sandbox.addBackend("lab", settings: ["base_url=https://lab.corp.example:8443"])
    let path = try sandbox.file(
      """
      "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
      "Root","Corp","alice","alice-pw","https://corp.example/login","","","0","",""
      "Root","Lab","bob","bob-pw","https://LAB.corp.example/","","","0","",""
      "Root","Mail","carol","carol-pw","https://mail.example/","","","0","",""

      """)
    let refused = try sandbox.run(["import", path])
    #expect(refused.status == 2, "\(refused)")
    #expect(
      refused.standardError.hasPrefix(
        "accounts: \(path): line 4, field URL: its URL's host (mail.example) is the base_url host of no backend; "
          + "`--backend NAME` sends such rows to that backend on purpose (import them apart from the others), "
          + "or leave such rows out with --partial\n"), "\(refused)")
    let partial = try sandbox.run(["import", path, "--partial"])
    #expect(partial.status == 1 && partial.standardError.hasSuffix("imported 2, updated 0, skipped 0, failed 1\n"), "\(partial)")
    #expect(try sandbox.tagsByAccount().keys.sorted() == ["alice@corp", "bob@lab"])
    #expect(try sandbox.password("bob@lab") == "bob-pw\n")
    try sandbox.ok(["import", path, "--backend", "lab"])
    #expect(try sandbox.tagsByAccount().keys.sorted() == ["alice@corp", "alice@lab", "bob@lab", "carol@lab"], "--backend wins")
    #expect(try sandbox.invariantViolations() == [])
  }

  /// With one backend, a vault row of another site (a personal bank's) is not saved on the
  /// company's backend, where `login --stale` would send its password: it is named with the
  /// fix; a row without a site's URL goes there; --backend sends them on purpose.
  @Test func withOneBackendARowOfAnotherSiteIsNamedNotSavedThere() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let path = try sandbox.file(
      """
      name,url,username,password,note
      Corp,https://corp.example/login,alice,alice-pw,
      Bank,https://mybank.example/,bob,bank-pw,
      Wiki,,carol,carol-pw,
      Mail,mailto:dave@mybank.example,dave,dave-pw,

      """)
    let refused = try sandbox.run(["import", path])
    #expect(refused.status == 2, "\(refused)")
    #expect(
      refused.standardError.hasPrefix(
        "accounts: \(path): line 3, field url: its URL's host (mybank.example) is the base_url host of no backend; "
          + "`--backend corp` sends such rows to corp on purpose (import them apart from the others), "
          + "or leave such rows out with --partial\n"), "\(refused)")
    #expect(!refused.standardError.contains("bank-pw"))
    #expect(try sandbox.tagsByAccount().isEmpty, "nothing written")
    let partial = try sandbox.run(["import", path, "--partial"])
    #expect(partial.status == 1 && partial.standardError.hasSuffix("imported 3, updated 0, skipped 0, failed 1\n"), "\(partial)")
    #expect(try sandbox.tagsByAccount().keys.sorted() == ["alice@corp", "carol@corp", "dave@corp"])
    try sandbox.ok(["import", path, "--backend", "corp"])
    #expect(try sandbox.password("bob") == "bank-pw\n", "sent there on purpose")
    #expect(try sandbox.invariantViolations() == [])
  }

  /// Hosts as a browser reads them: a non-ASCII host in its IDNA form (libidn2), `\` ending
  /// the authority (so `localhost\@127.0.0.1` is localhost), a protocol-relative `//HOST`.
  @Test func rowsGoWhereABrowserWouldGo() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.addBackend("books", settings: ["base_url=https://xn--bcher-kva.example/api"])
    try sandbox.addBackend("lab", settings: ["base_url=http://localhost:8080", "allow_insecure_transport=true"])
    try sandbox.addBackend("loop", settings: ["base_url=http://127.0.0.1:9", "allow_insecure_transport=true"])
    let path = try sandbox.file(
      """
      name,url,username,password,note
      a,https://bücher.example/login,alice,pw,
      b,https://ＢＵ\u{0308}ＣＨＥＲ．example/,bob,pw,
      c,http://localhost\\@127.0.0.1/,carol,pw,
      d,//127.0.0.1/x,dave,pw,

      """)
    let result = try sandbox.run(["import", path])
    #expect(result.status == 0, "\(result)")
    #expect(try sandbox.tagsByAccount().keys.sorted() == ["alice@books", "bob@books", "carol@lab", "dave@loop"])
    #expect(try sandbox.invariantViolations() == [])
  }

  /// A one-time-code seed a format does not read is never dropped with exit 0: a column named
  /// like one (fullwidth too), or an otpauth:// URI in a column the format reads nothing from.
  @Test func seedsAFormatDoesNotReadRefuseTheFile() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let lastPass = try sandbox.file(
      "url,username,password,totp,extra,name,grouping,fav\nhttps://corp.example,alice,alice-pw,,\"OTPAUTH://totp/corp:alice?secret=JBSWY3DPEHPK3PXP\",Corp,,0\n")
    let inExtra = try sandbox.run(["import", lastPass])
    #expect(inExtra.status == 2, "\(inExtra)")
    #expect(
      inExtra.standardError == "accounts: \(lastPass): line 2, field extra: an otpauth:// URI (a one-time-code seed) in a "
        + "column LastPass's format does not read: it would be lost; write the file in accounts' own format "
        + "(account,password,backend,tags,otp), whose otp column takes them, or remove the column and set each seed "
        + "with `accounts otp set USER`\n", "\(inExtra)")
    let named = try sandbox.run(["import", "-"], stdin: "name,url,username,password,２-Step Verification\ncorp,https://corp.example,bob,pw,JBSWY3DPEHPK3PXP\n")
    #expect(named.status == 2 && named.standardError.contains("its column '２-Step Verification' looks like one-time-code seeds"), "\(named)")
    #expect(try sandbox.tagsByAccount().isEmpty, "nothing written")
  }
}

extension Sandbox {
  /// Writes `text` to a file in the sandbox's directory; its path.
  func file(_ text: String, name: String = "accounts.csv") throws -> String {
    try file(Data(text.utf8), name: name)
  }

  /// Writes `bytes` to a file in the sandbox's directory; its path.
  func file(_ bytes: Data, name: String = "accounts.csv") throws -> String {
    let path = keyring.root + "/" + name
    try bytes.write(to: URL(fileURLWithPath: path))
    return path
  }

  /// Each saved account's tags, as `list --json` gives them.
  func tagsByAccount() throws -> [String: [String]] {
    let list = try #require(try json(["list", "--json"]) as? [[String: Any]])
    var tags: [String: [String]] = [:]
    for entry in list { tags[entry["account"] as? String ?? "?"] = entry["tags"] as? [String] }
    return tags
  }

  /// ACCOUNT's remembered password, as `password` prints it.
  func password(_ account: String) throws -> String {
    try ok(["password", account]).standardOutput
  }
}
