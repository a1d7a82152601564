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
}
