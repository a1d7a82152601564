import Foundation
import TestSupport
import Testing

/// OTP seeds through `import` and `export`: each format's column, checked with the rest of the
/// file, stored like the password, replaced by --update, and given back by `export
/// --with-passwords | import` into an empty book.
@Suite(.blocking) struct ImportSeedTests {
  func code(_ sandbox: Sandbox, _ user: String, at time: Int64 = 1_111_111_109) throws -> String {
    try sandbox.ok(["otp", user, "--at", String(time)]).standardOutput
  }

  func otpItems(_ sandbox: Sandbox) throws -> [String: String] {
    var items: [String: String] = [:]
    for item in try sandbox.allKeyringItems() where item.kind == "otp" { items[item.account] = item.secret }
    return items
  }

  @Test func eachFormatsSeedColumnIsStored() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let keePassXC = """
      "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
      "Root/QA","Corp","qa1","qa1-pw","","","otpauth://totp/Corp:qa1?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&period=30&digits=8&issuer=Corp","0","",""
      "Root/QA","Corp","qa2","qa2-pw","","","key=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&size=7&step=30","0","",""
      "Root/QA","Corp","qa3","qa3-pw","","","","0","",""

      """
    let path = sandbox.keyring.root + "/keepassxc.csv"
    try keePassXC.write(toFile: path, atomically: true, encoding: .utf8)
    try sandbox.ok(["import", path])
    let bitwarden = """
      folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp
      ,,login,Corp,,,0,,qa4,qa4-pw,gezdgnbvgy3tqojqgezdgnbvgy3tqojq

      """
    try sandbox.ok(["import", "-"], stdin: bitwarden)
    #expect(try code(sandbox, "qa1") == "07081804\n")
    #expect(try code(sandbox, "qa2") == "7081804\n")
    #expect(try sandbox.run(["otp", "qa3"]).status == 3, "an empty column is no seed")
    #expect(try code(sandbox, "qa4") == "081804\n")
    #expect(
      try otpItems(sandbox)["qa1"]
        == "otpauth://totp/Corp:qa1?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Corp&algorithm=SHA1&digits=8&period=30"
    )
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.map { $0["otp"] as? Bool } == [true, true, false, true])
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func aBadSeedFailsItsRowByLineAndFieldWithoutTheSeed() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let csv = """
      folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp
      ,,login,Corp,,,0,,qa4,qa4-pw,steam://GEZDGNBVGY3TQOJQ
      ,,login,Corp,,,0,,qa5,qa5-pw,otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&encoder=steam

      """
    let result = try sandbox.run(["import", "-"], stdin: csv)
    #expect(result.status == 2, "\(result)")
    let lines = result.standardError.split(separator: "\n")
    #expect(lines.count == 3, "\(result)")
    #expect(lines.first?.hasPrefix("accounts: stdin: line 2, field login_totp: not a TOTP seed: character 6") == true)
    #expect(
      lines.dropFirst().first?.hasPrefix("accounts: stdin: line 3, field login_totp: not a TOTP seed URI: its encoder")
        == true)
    #expect(!result.standardError.contains("GEZDGNBV"))
    #expect(try sandbox.allKeyringItems() == [])
  }

  @Test func updateReplacesTheSeed() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice"])
    try sandbox.ok(["otp", "set", "alice"], stdin: "JBSWY3DPEHPK3PXP\n")
    let csv = "account,otp\nalice,otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&digits=8\n"
    let skipped = try sandbox.ok(["import", "-"], stdin: csv)
    #expect(skipped.standardError.hasSuffix("imported 0, updated 0, skipped 1, failed 0\n"))
    #expect(try otpItems(sandbox)["alice"]?.contains("JBSWY3DPEHPK3PXP") == true, "left alone")
    try sandbox.ok(["import", "-", "--update"], stdin: csv)
    #expect(try code(sandbox, "alice") == "07081804\n")
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func exportWithPasswordsGivesBackTheSameSeeds() throws {
    let sourceWorld = try Fixture().addingBackend("corp")
    defer { sourceWorld.close() }
    let source = sourceWorld.sandbox
    try source.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "alice-pw\n")
    try source.ok(["add", "bob"])
    try source.ok(["add", "carol"])
    try source.ok(
      ["otp", "set", "alice"],
      stdin:
        "otpauth://totp/Big%20Corp:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA&issuer=Big%20Corp&algorithm=SHA256&digits=8&period=60\n"
    )
    try source.ok(["otp", "set", "bob"], stdin: "JBSWY3DPEHPK3PXP\n")

    let plain = try source.ok(["export"]).standardOutput
    #expect(!plain.contains("otpauth") && !plain.contains("JBSW"), "no seed without --with-passwords")
    let exported = try source.ok(["export", "--with-passwords"]).standardOutput
    #expect(
      exported == "account,password,backend,tags,otp\r\n"
        + "alice@corp,alice-pw,corp,,otpauth://totp/Big%20Corp:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA&issuer=Big%20Corp&algorithm=SHA256&digits=8&period=60\r\n"
        + "bob@corp,,corp,,otpauth://totp/bob@corp?secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30\r\n"
        + "carol@corp,,corp,,\r\n")
    let json = try #require(try source.json(["export", "--with-passwords", "--json"]) as? [[String: Any]])
    #expect(json.map { $0["otp"] is String } == [true, true, false])

    let targetWorld = try Fixture().addingBackend("corp")
    defer { targetWorld.close() }
    let target = targetWorld.sandbox
    let imported = try target.ok(["import", "-"], stdin: exported)
    #expect(imported.standardError == "stdin: imported 3, updated 0, skipped 0, failed 0\n", "\(imported)")
    #expect(try otpItems(target) == otpItems(source))
    for time: Int64 in [59, 1_234_567_890] {
      for user in ["alice", "bob"] { #expect(try code(target, user, at: time) == code(source, user, at: time)) }
    }
    #expect(
      try code(target, "alice", at: 119) == "46119246\n", "RFC 6238's SHA256 vector of T=1, at 119 s with a 60 s period"
    )
    #expect(try target.run(["otp", "carol"]).status == 3)
    #expect(try target.invariantViolations() == [])
  }

  /// LastPass's export (once taken for Chrome's, its totp column dropped with exit 0) and
  /// 1Password 8's (once refused) give their seeds too; a column of seeds in a format that
  /// reads none refuses the file, and nothing is written.
  @Test func lastPassAndOnePasswordExportsBringTheirSeedsAndAnUnreadSeedColumnRefusesTheFile() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let lastPass = """
      url,username,password,totp,extra,name,grouping,fav
      https://corp.example/login,lp1,lp1-pw,GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ,,Corp,QA,0
      http://sn,,,,NoteType:Server,a note,QA,0

      """
    let fromLastPass = try sandbox.ok(["import", "-"], stdin: lastPass)
    #expect(
      fromLastPass.standardError
        == "accounts: stdin: line 3: skipped: a LastPass secure note\nstdin: imported 1, updated 0, skipped 1, failed 0\n")
    let onePassword = """
      Title,Url,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes
      Corp,https://corp.example,op1,op1-pw,otpauth://totp/Corp:op1?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&digits=8,false,false,,

      """
    try sandbox.ok(["import", "-"], stdin: onePassword)
    #expect(try code(sandbox, "lp1") == "081804\n")
    #expect(try code(sandbox, "op1") == "07081804\n")
    #expect(try sandbox.password("lp1") == "lp1-pw\n" && sandbox.password("op1") == "op1-pw\n")

    let index = try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath))
    let withSeeds = "name,url,username,password,TOTP Secret\nCorp,https://corp.example,qa9,qa9-pw,GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n"
    let refused = try sandbox.run(["import", "-"], stdin: withSeeds)
    #expect(refused.status == 2 && refused.standardOutput.isEmpty, "\(refused)")
    #expect(
      refused.standardError.hasPrefix(
        "accounts: stdin: its column 'TOTP Secret' looks like one-time-code seeds, which Chrome's format does not hold: "
          + "they would be lost; write the file in accounts' own format"), "\(refused)")
    #expect(!refused.standardError.contains("GEZDGNBV") && !refused.standardError.contains("qa9-pw"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath)) == index, "nothing written")
    #expect(try sandbox.invariantViolations() == [])
  }
}
