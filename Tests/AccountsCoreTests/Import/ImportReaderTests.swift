@testable import AccountsContract
@testable import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

/// The import file reader: hostile fields refused by line and field name and never by content,
/// its bounds, and what each format it reads gives.
@Suite struct ImportReaderTests {
  /// Every record of `text`: its line and its fields as text.
  func records(_ text: String) throws(ImportError) -> [(line: Int, fields: [String])] {
    var reader = try CSVReader(Array(text.utf8))
    var records: [(line: Int, fields: [String])] = []
    while let record = try reader.next() {
      records.append((record.line, record.fields.map { String(decoding: $0, as: UTF8.self) }))
    }
    return records
  }

  func read(_ text: String, backends: Set<String> = []) throws(ImportError) -> ImportFile {
    try ImportReader.read(Array(text.utf8), backends: backends)
  }

  /// The error reading `bytes` throws, checked never to hold `secret`.
  func failure(reading bytes: [UInt8], secret: String = "hunter2", sourceLocation: SourceLocation = #_sourceLocation)
    -> ImportError?
  {
    do {
      let file = try ImportReader.read(bytes)
      Issue.record("read \(file.rows.count) rows", sourceLocation: sourceLocation)
      return nil
    } catch {
      let shown = error.message + (error.fix ?? "")
      #expect(!shown.contains(secret), "\(shown)", sourceLocation: sourceLocation)
      return error
    }
  }

  /// A record as KeePassXC and Firefox write them: every field in quotes.
  func quoted(_ fields: [String], end: String = "\n") -> String {
    fields.map { "\"\($0)\"" }.joined(separator: ",") + end
  }

  @Test func aFinalLineEndBlankLinesAndAByteOrderMarkChangeNothing() throws {
    let plain = "account,password\nalice,pw1\n\nbob,pw2"
    for text in [plain, plain + "\n", plain + "\r\n", "\u{FEFF}" + plain, "\n\r\n" + plain + "\n\n"] {
      let file = try read(text)
      #expect(file.format == .accounts, "\(text.debugDescription)")
      #expect(file.rows.map(\.user) == ["alice", "bob"], "\(text.debugDescription)")
      #expect(file.rows.map { $0.password.map(TestDoubles.text) } == ["pw1", "pw2"])
    }
    for empty in ["", "\u{FEFF}", "\n\n", "\r\n"] {
      #expect(throws: ImportError.noHeader, "\(empty.debugDescription)") { try read(empty) }
    }
  }

  @Test func hostileFieldsAreRefusedByLineAndFieldNameNeverByContent() {
    let header = Array("account,password\nalice,ok\nbob,\"two\nlines\"\n".utf8)
    let cases: [(row: [UInt8], line: Int, problem: CSVProblem)] = [
      (Array("carol,hun\"ter2\n".utf8), 5, .quoteInUnquotedField),
      (Array("carol,\"hunter2\"x\n".utf8), 5, .textAfterClosingQuote),
      (Array("carol,\"hunter2\nand more\n".utf8), 5, .unterminatedQuote),
      (Array("carol,hunter2\rx\n".utf8), 5, .loneCarriageReturn),
      (Array("carol,hunter2".utf8) + [0, 0x0A], 5, .nulByte),
      (Array("carol,\"hunter2\n".utf8) + [0] + Array("\"\n".utf8), 6, .nulByte),
      (Array("carol,hunter2".utf8) + [0xFF], 5, .invalidUTF8),
      (Array("carol,hunter2".utf8) + [0xC0, 0xAF], 5, .invalidUTF8),  // an overlong '/'
      (Array("carol,hunter2".utf8) + [0xED, 0xA0, 0x80], 5, .invalidUTF8),  // a surrogate
      (Array("carol,\"hunter2\n".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("\"".utf8), 5, .invalidUTF8),
    ]
    for (row, line, problem) in cases {
      let expected = ImportError.malformed(line: line, field: 2, name: "password", problem: problem)
      #expect(failure(reading: header + row) == expected, "\(row)")
      #expect(expected.message.hasPrefix("line \(line), field password: "))
    }
    let inHeader = failure(reading: Array("acc\"ount,password\n".utf8))
    #expect(inHeader == .malformed(line: 1, field: 1, name: nil, problem: .quoteInUnquotedField))
    #expect(inHeader?.message.hasPrefix("line 1, field 1: ") == true)
    let beyondHeader = failure(reading: header + Array("carol,x,hunter2\"\n".utf8))
    #expect(beyondHeader == .malformed(line: 5, field: 3, name: nil, problem: .quoteInUnquotedField))
  }

  @Test func recordsAreBoundedInFieldsAndFilesInSize() throws {
    let fields = { (count: Int) in Array(repeating: "x", count: count).joined(separator: ",") }
    #expect(try records(fields(CSVReader.fieldLimit))[0].fields.count == 1_000)
    #expect(throws: ImportError.tooManyFields(line: 2, limit: 1_000)) {
      try records("a\n" + fields(CSVReader.fieldLimit + 1))
    }
    #expect(throws: Never.self) { _ = try CSVReader(Array(repeating: 0x61, count: 10), sizeLimit: 10) }
    #expect(throws: ImportError.tooLarge(limit: 10)) { try CSVReader(Array(repeating: 0x61, count: 11), sizeLimit: 10) }
    let huge = [UInt8](repeating: 0x61, count: (64 << 20) + 1)
    #expect(failure(reading: huge) == .tooLarge(limit: 64 << 20))
    #expect(ImportReader.sizeLimit == 64 << 20 && ImportError.tooLarge(limit: 64 << 20).message.contains("64 MiB"))
  }

  @Test func readsAThousandRows() throws {
    var text = "account,password,tags\r\n"
    for index in 1...1_000 { text += "qa\(index),\"p,\"\"\(index)\",qa smoke\r\n" }
    let file = try read(text)
    try #require(file.rows.count == 1_000 && file.problems.isEmpty)
    #expect(file.rows.map(\.line) == Array(2...1_001))
    #expect(file.rows[999].user == "qa1000" && file.rows[999].password.map(TestDoubles.text) == "p,\"1000")
    #expect(file.rows.allSatisfy { $0.tags == ["qa", "smoke"] })
  }

  @Test func eachFormatGivesItsUsersPasswordsAndSeeds() throws {
    let seed = "otpauth://totp/corp:alice?secret=JBSWY3DPEHPK3PXP"
    let keePassXC = try read(
      quoted(["Group", "Title", "Username", "Password", "URL", "Notes", "TOTP", "Icon", "Last Modified", "Created"])
        + quoted(["Root/QA", "corp", "alice", "pw,1", "https://corp", "a\nnote", seed, "0", "2024-01-01T00:00:00Z", ""])
        + quoted(["Root/Recycle Bin", "old", "zed", "pw", "", "", "", "0", "", ""]))
    try #require(keePassXC.format == .keePassXC && keePassXC.rows.map(\.user) == ["alice"])
    #expect(keePassXC.rows[0].password.map(TestDoubles.text) == "pw,1")
    #expect(keePassXC.rows[0].otp.map(TestDoubles.text) == seed)
    #expect(keePassXC.rows[0].backend == nil && keePassXC.rows[0].tags.isEmpty, "a group becomes no tag")
    #expect(keePassXC.skipped == [ImportSkip(line: 4, reason: "in KeePassXC's Recycle Bin")])

    let bitwarden = try read(
      ImportFormat.bitwarden.headerRow + "\n"
        + "QA,1,login,corp,,,0,https://corp,bob,pw2,JBSWY3DPEHPK3PXP\n"
        + ",,note,a secure note,hunter2 in a note,,0,,,,\n")
    try #require(bitwarden.format == .bitwarden && bitwarden.rows.map(\.user) == ["bob"])
    #expect(bitwarden.rows[0].password.map(TestDoubles.text) == "pw2")
    #expect(bitwarden.rows[0].otp.map(TestDoubles.text) == "JBSWY3DPEHPK3PXP")
    #expect(bitwarden.skipped == [ImportSkip(line: 3, reason: "a Bitwarden item of type 'note'")])

    for header in ["name,url,username,password,note", "name,url,username,password"] {
      let note = header.hasSuffix("note") ? ",a note" : ""
      let chrome = try read(header + "\ncorp,https://corp/login,carol,pw3\(note)\ncorp,https://corp,dave,\(note)\n")
      try #require(chrome.format == .chrome && chrome.rows.map(\.user) == ["carol", "dave"])
      #expect(chrome.rows[0].password.map(TestDoubles.text) == "pw3" && chrome.rows[0].otp == nil)
      #expect(chrome.rows[1].password == nil, "an empty password is none")
    }

    let firefox = try read(
      quoted(ImportFormat.firefox.headerRow.split(separator: ",").map(String.init), end: "\r\n")
        + quoted(["https://corp", "erin", "pw4", "", "https://corp", "{0d3c}", "1", "1", "1"], end: "\r\n"))
    try #require(firefox.format == .firefox && firefox.rows.map(\.user) == ["erin"])
    #expect(firefox.rows[0].password.map(TestDoubles.text) == "pw4")
  }

  /// Bitwarden's type is compared without case: `Login` (as some exports and hand edits write
  /// it) is a login, imported, never skipped as a type it does not know.
  @Test(arguments: ["login", "Login", "LOGIN"])
  func aBitwardenLoginIsImportedWhateverTheCaseOfItsType(type: String) throws {
    let file = try read(ImportFormat.bitwarden.headerRow + "\n,,\(type),corp,,,0,https://corp,bob,pw2,\n")
    #expect(file.skipped.isEmpty && file.problems.isEmpty)
    #expect(file.rows.map(\.user) == ["bob"] && file.rows.first?.password.map(TestDoubles.text) == "pw2")
  }

  /// LastPass's export (taken for Chrome's before, its totp dropped) and 1Password 8's, each
  /// with its seeds; their secure notes and archived items are no accounts.
  @Test func lastPassAndOnePasswordRowsGiveTheirSeeds() throws {
    let lastPass = try read(
      "url,username,password,totp,extra,name,grouping,fav\n"
        + "https://corp.example/login,alice,pw1,JBSWY3DPEHPK3PXP,,corp,QA,0\n"
        + "http://sn,,,,\"NoteType:Server\",server note,QA,0\n"
        + "http://sn,root,hunter2,,,a note with a user,QA,0\n")
    try #require(lastPass.format == .lastPass && lastPass.rows.map(\.user) == ["alice"])
    #expect(lastPass.rows[0].password.map(TestDoubles.text) == "pw1")
    #expect(lastPass.rows[0].otp.map(TestDoubles.text) == "JBSWY3DPEHPK3PXP")
    #expect(lastPass.rows[0].hosts == ["corp.example"] && lastPass.urlField == "url" && lastPass.otpField == "totp")
    #expect(lastPass.skipped.map(\.reason) == ["a LastPass secure note", "a LastPass secure note"])

    let seed = "otpauth://totp/corp:bob?secret=JBSWY3DPEHPK3PXP&issuer=corp"
    let onePassword = try read(
      "Title,Url,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes\n"
        + "corp,https://corp.example,bob,pw2,\(seed),false,false,qa,\n"
        + "old,https://corp.example,carol,pw3,,false,true,,\n")
    try #require(onePassword.format == .onePassword && onePassword.rows.map(\.user) == ["bob"])
    #expect(onePassword.rows[0].password.map(TestDoubles.text) == "pw2")
    #expect(onePassword.rows[0].otp.map(TestDoubles.text) == seed)
    #expect(onePassword.rows[0].tags.isEmpty, "1Password's tags are its own, not accounts' tags")
    #expect(onePassword.skipped == [ImportSkip(line: 3, reason: "archived in 1Password")])
  }

  /// A column that looks like one-time-code seeds in a format that reads none there refuses
  /// the file: the seeds would otherwise be dropped with exit 0.
  @Test(arguments: [
    "totp", "TOTP Secret", "otpauth", "2FA", "One-time code", "mfa_seed", "login_otp", "2-Step Verification",
    "two-step", "2step", "TwoStep", "Verification code", "Authentication Code", "security code", "Seed", "secret",
    "Auth Key", "Authenticator", "ＴＯＴＰ", "２ＦＡ", "Ｓｅｃｕｒｉｔｙ　Ｃｏｄｅ",
  ])
  func aOneTimeCodeColumnTheFormatDoesNotReadRefusesTheFile(column: String) {
    let error = failure(reading: Array("name,url,username,password,\(column)\ncorp,https://corp,alice,hunter2,JBSW\n".utf8))
    #expect(error == .unreadOneTimeCodes(column: column, line: nil, format: .chrome))
    #expect(error?.message == "its column '\(column)' looks like one-time-code seeds, which Chrome's format does not hold: they would be lost")
    #expect(error?.status == .usage)
  }

  @Test func columnsThatOnlyResembleOneTimeCodesAreNoSeeds() throws {
    for header in [ImportFormat.firefox.headerRow, ImportFormat.bitwarden.headerRow, "name,url,username,password,hotspot,footprint"] {
      #expect(throws: Never.self, "\(header)") { try read(header + "\n") }
    }
  }

  /// A seed's `otpauth://` URI in a column the format reads nothing from (LastPass's `extra`,
  /// KeePassXC's `Notes`, a column of its own) refuses the file, by line and column, never
  /// showing the URI; a column the format reads it from takes it.
  @Test(arguments: [
    (ImportFormat.lastPass.headerRow, "https://corp.example,alice,hunter2,,otpauth://totp/x?secret=JBSWY3DPEHPK3PXP,corp,,0", "extra"),
    (ImportFormat.lastPass.headerRow, "https://corp.example,alice,hunter2,,,  OTPAuth://TOTP/x?secret=JBSW,,0", "name"),
    (ImportFormat.keePassXC.headerRow, "Root,Corp,alice,hunter2,https://corp.example,otpauth://totp/x?secret=JBSW,,0,,", "Notes"),
    ("name,url,username,password,note,mine", "corp,https://corp.example,alice,hunter2,,oTpAuTh://hotp/x", "mine"),
  ])
  func anOTPAuthURIInAColumnTheFormatDoesNotReadRefusesTheFile(header: String, row: String, column: String) throws {
    let file = header + "\n\n" + row + "\n"  // the row on line 3
    let error = failure(reading: Array(file.utf8), secret: "JBSW")
    let format = try #require(ImportFormat.detect(header: header.split(separator: ",").map(String.init)))
    #expect(error == .unreadOneTimeCodes(column: column, line: 3, format: format))
    #expect(
      error?.message == "line 3, field \(column): an otpauth:// URI (a one-time-code seed) in a column \(format.name)'s "
        + "format does not read: it would be lost")
    #expect(error?.status == .usage)
  }

  @Test func ordinaryColumnsWithoutOTPAuthURIsAreRead() throws {
    let lastPass = try read(
      ImportFormat.lastPass.headerRow + "\nhttps://corp.example,alice,pw,JBSWY3DPEHPK3PXP,otpauth is my note,Corp,QA,1\n")
    #expect(lastPass.rows.map(\.user) == ["alice"])
    let own = try read("account,password,otp\nalice,otpauth://not-a-seed-but-a-password,\n")
    #expect(own.rows.first?.password.map(TestDoubles.text) == "otpauth://not-a-seed-but-a-password", "a column read")
  }

  @Test func anUnknownHeaderIsRefusedListingTheKnownOnesWithoutEchoingIt() {
    let error = failure(reading: Array("alice,hunter2,corp\n".utf8))
    #expect(error == .unknownHeader(columns: 3))
    #expect(error?.status == .usage, "bad input, as a bad row")
    for format in ImportFormat.allCases {
      #expect(error?.fix?.contains("\(format.headerRow) (\(format.name))") == true, "\(format)")
    }
  }

  @Test func accountsOwnFormatRefusesColumnsItDoesNotKnowAndColumnsNamedTwice() {
    #expect(failure(reading: Array("account,password,hunter2\n".utf8)) == .unknownColumn(position: 3))
    #expect(failure(reading: Array("account,tag\nalice,qa\n".utf8)) == .unknownColumn(position: 2))
    #expect(failure(reading: Array("account,Password, password \n".utf8)) == .duplicateColumn(name: "password"))
    #expect(throws: Never.self) { try read("name,url,username,password,extra,extra\n") }
  }

  @Test func anAccountNamesItsBackendAsAddReadsANewName() throws {
    let file = try read(
      "account,backend\nalice@corp,\nbob@example.com,\nbob@example.com@corp,\ncarol@qa.example,\ndave,test\n"
        + "erin@corp,corp\n",
      backends: ["corp", "qa.example"])
    #expect(file.problems.isEmpty)
    #expect(file.rows.map(\.user) == ["alice", "bob@example.com", "bob@example.com", "carol", "dave", "erin"])
    #expect(file.rows.map(\.backend) == ["corp", nil, "corp", "qa.example", "test", "corp"])
    let browser = try read("name,url,username,password\ncorp,https://corp,frank@corp,pw\n")
    #expect(browser.rows.map(\.user) == ["frank@corp"] && browser.rows[0].backend == nil, "only the own format")
  }

  @Test func rowProblemsAreAllCollectedWithTheirLinesAndTheRestIsRead() throws {
    let file = try read(
      "account,password,backend,tags,otp\n"
        + "good,hunter2,,qa  smoke\tci,\n"
        + "\"bad name\",hunter2,,,\n"
        + "-dash,hunter2,,a/b ok -x,\n"
        + "x@bad!backend,hunter2,,,\n"
        + "y@qa,hunter2,corp,,\n"
        + "z,hunter2,no/slash,,\n"
        + ",hunter2,,,\n"
        + "short,hunter2\n"
        + "\"multi\nline\",hunter2,,,,extra\n"
        + "last,,,,\n"
        + "alone\n")
    try #require(file.rows.map(\.user) == ["good", "last"])
    #expect(file.rows[0].tags == ["ci", "qa", "smoke"] && file.rows[1].password == nil && file.rows[1].otp == nil)
    let found = file.problems.map { "\($0.line) \($0.field ?? "-")" }
    let expected = ["3 account", "4 account", "4 tags", "4 tags", "5 account", "6 account", "7 backend", "8 account"]
    try #require(found == expected + ["9 -", "10 -", "13 -"])
    #expect(file.problems[0].description.hasPrefix("line 3, field account: the user name 'bad name' contains a space"))
    #expect(file.problems[8].description == "line 9: it has 2 fields, the header 5")
    #expect(file.problems[8].fix == "every row needs the header's columns")
    #expect(file.problems[10].description == "line 13: it has 1 field, the header 5")
    #expect(file.named[3] == nil && file.named[4] == nil && file.named[7] == nil, "no valid account: \(file.named)")
    for problem in file.problems {
      #expect(!(problem.message + (problem.fix ?? "")).contains("hunter2"), "\(problem)")
    }
  }

  @Test func passwordManagerRowsWithoutAUserAreSkippedButAnEmptyAccountIsAProblem() throws {
    let files = [
      ImportFormat.keePassXC.headerRow + "\nRoot/Wi-Fi,Office,,wifi-key,,,,0,,\nRoot,Corp,qa1,pw,,,,0,,\n",
      ImportFormat.bitwarden.headerRow + "\n,,login,site,,,0,https://x,,hunter2,\n,,login,Corp,,,0,,qa1,pw,\n",
      "name,url,username,password\nsite,https://x, ,hunter2\ncorp,https://corp,qa1,pw\n",
      ImportFormat.firefox.headerRow + "\nhttps://x,,hunter2,,https://x,{1},1,1,1\nhttps://corp,qa1,pw,,,{2},1,1,1\n",
    ]
    for text in files {
      let file = try read(text)
      #expect(file.skipped == [ImportSkip(line: 2, reason: "no user name")], "\(file.format)")
      #expect(file.rows.map(\.user) == ["qa1"] && file.problems.isEmpty, "\(file.format)")
    }
    let own = try read("account,password\n,hunter2\n")
    #expect(own.skipped.isEmpty && own.problems.map(\.description) == ["line 2, field account: the user name is empty"])
  }

  /// The limit `add` and `passwd --password-stdin` keep, for a password and a seed alike.
  @Test func aPasswordOrSeedOverTheSecretLimitIsAProblemOfItsField() throws {
    let atLimit = String(repeating: "p", count: SecretLimits.bytes)
    let over = atLimit + "q"
    let file = try read("account,password,otp\nalice,\(atLimit),\nbob,\(over),\ncarol,pw,\(over)\n")
    #expect(file.rows.map(\.user) == ["alice"] && file.rows[0].password?.count == SecretLimits.bytes)
    #expect(
      file.problems.map(\.description) == [
        "line 3, field password: the password is longer than 64 KiB",
        "line 4, field otp: the OTP seed is longer than 64 KiB",
      ])
    #expect(file.named[3]?.user == "bob", "the account is known")
    #expect(SecretLimits.bytes == 65536 && SecretLimits.text == "64 KiB")
  }
}
