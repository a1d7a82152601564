import AccountsContract
import AccountsCore
import AccountsSystem
import Testing

/// The import plan: every row of a file checked against the configuration and the index before
/// anything is written, each imported, updated, skipped or failed, by the rule `add` follows.
@Suite struct ImportPlanTests {
  let at = Timestamp(secondsSince1970: 1_800_000_000)

  func plan(
    _ text: String, tags: [String] = [], update: Bool = false, backend: String? = nil,
    saved: [AccountID] = [], backends: [String] = ["corp"], baseURLs: [String: String] = [:]
  ) throws -> ImportPlan {
    let file = try ImportReader.read(Array(text.utf8), backends: Set(backends))
    let book = try AccountBook(accounts: saved.map { Account(id: $0, addedAt: at) }, autoLogin: nil, previousAutoLogin: nil)
    let configuration = try Configuration(
      backends: backends.map { BackendConfig(name: $0, adapter: "plain", settings: baseURLs[$0].map { ["base_url": $0] } ?? [:]) })
    return try ImportPlan(
      file, tags: tags, update: update, backend: backend, book: book, configuration: configuration, hostNames: Converter())
  }

  /// libidn2's answers for the hosts these tests use.
  struct Converter: HostNameConversion {
    func asciiHost(_ host: String) -> Result<String, HostNameConversionError> {
      switch host {
      case "bücher.example", "ｂüｃｈｅｒ．ｅｘａｍｐｌｅ": .success("xn--bcher-kva.example")
      case "ｅｖｉｌ＠ｃｏｒｐ.example": .success("evil@corp.example")
      default: .failure(.invalid("string contains a disallowed character"))
      }
    }
  }

  func actions(_ plan: ImportPlan) -> [String] { plan.entries.map { "\($0.line) \($0.action.rawValue)" } }

  @Test func newRowsAreImportedOnTheOnlyBackendWithTheirTagsAndTheGivenOnes() throws {
    let result = try plan("account,password,tags\nalice,pw1,qa\nbob@corp,pw2,\n", tags: ["smoke", "qa"])
    #expect(actions(result) == ["2 imported", "3 imported"])
    #expect(result.entries.map(\.id) == [AccountID(user: "alice", backend: "corp"), AccountID(user: "bob", backend: "corp")])
    #expect(result.entries[0].tags == ["qa", "smoke"], "normalised: sorted, once each")
    #expect(result.entries[1].tags == ["qa", "smoke"])
    #expect(result.replacesTags, "the file has a tags column")
    #expect(result.summary == "imported 2, updated 0, skipped 0, failed 0")
    #expect(result.failures.isEmpty)
  }

  @Test func aSavedAccountIsSkippedUnlessUpdated() throws {
    let alice = AccountID(user: "alice", backend: "corp")
    let skipped = try plan("account,password\nalice,pw1\n", saved: [alice])
    #expect(actions(skipped) == ["2 skipped"])
    #expect(skipped.entries[0].savedAlready && skipped.entries[0].row == nil)
    #expect(skipped.entries[0].reason == "alice@corp is saved already (--update updates it)")
    let updated = try plan("account,password\nalice,pw1\n", update: true, saved: [alice])
    #expect(actions(updated) == ["2 updated"])
    #expect(updated.entries[0].row != nil && !updated.replacesTags)
  }

  @Test func oneAccountOnTwoLinesFailsBoth() throws {
    let result = try plan("account,password\nalice,pw1\nbob,pw\nalice@corp,pw2\n")
    #expect(actions(result) == ["2 failed", "3 imported", "4 failed"])
    #expect(result.entries[0].problems.first?.message == "alice@corp is on lines 2 and 4")
    #expect(result.entries[0].problems.first?.fix == "keep one of them")
    #expect(result.entries[0].row == nil && result.entries[2].row == nil, "nothing of them is written")
  }

  /// A backend the file came with from another machine: named, with the fix that adds it
  /// (export does not carry backends), and a guess when one is close.
  @Test func anUnknownBackendFailsItsRowWithTheFixThatAddsIt() throws {
    let result = try plan("account,password,backend\nalice,pw,crop\nbob,pw,home\n", backends: ["corp", "prod"])
    #expect(actions(result) == ["2 failed", "3 failed"])
    let guessed = try #require(result.entries[0].problems.first)
    #expect(guessed.fix?.hasPrefix("did you mean 'corp'? else add it first with `accounts backend add crop") == true, "\(guessed)")
    let other = try #require(result.entries[1].problems.first)
    #expect(other.fix == "add it first with `accounts backend add home --adapter A` (export does not carry backends)")
    #expect(result.summary == "imported 0, updated 0, skipped 0, failed 2")
  }

  @Test func withSeveralBackendsARowWithoutOneNeedsTheOption() throws {
    let without = try plan("account,password\nalice,pw\n", backends: ["corp", "prod"])
    #expect(actions(without) == ["2 failed"])
    let with = try plan("account,password\nalice,pw\n", backend: "prod", backends: ["corp", "prod"])
    #expect(with.entries.first?.id == AccountID(user: "alice", backend: "prod"))
  }

  @Test func aBadNameOrSeedFailsItsRowByFieldNeverByContent() throws {
    let result = try plan("account,password,otp\nal ice,pw,\nbob,pw,not-base32!\ncarol,pw,JBSWY3DPEHPK3PXP\n")
    #expect(actions(result) == ["2 failed", "3 failed", "4 imported"])
    #expect(result.entries[1].problems.first?.field == "otp")
    #expect(!(result.entries[1].problems.first?.message.contains("not-base32") ?? true), "the seed is a secret")
    #expect(result.entries[2].otp?.label == "carol@corp", "a seed without a label takes the account's name")
  }

  /// `import --update` never lets a row with a problem through because its account is saved:
  /// the row fails (so the whole import is refused, or with --partial that row is reported).
  @Test func aRowWithAProblemFailsEvenForASavedAccountUnderUpdate() throws {
    let alice = AccountID(user: "alice", backend: "corp")
    let result = try plan("account,password,otp\nalice,pw,not-base32!\nbob,pw,\n", update: true, saved: [alice])
    #expect(actions(result) == ["2 failed", "3 imported"])
    #expect(result.entries[0].id == alice && result.entries[0].row == nil)
    #expect(result.failures.map(\.line) == [2])
  }

  /// A password manager's row goes to the backend whose base_url host is its URL's host: exactly
  /// that host (no subdomain), any port; --backend wins; a host of several backends, or of none
  /// among several, fails the row on the URL's column.
  @Test func aRowGoesToTheBackendWhoseBaseURLHostIsItsURLsHost() throws {
    let urls = ["corp": "https://corp.example/api", "lab": "http://127.0.0.1:8080", "mirror": "https://mirror.example"]
    let file = """
      name,url,username,password
      corp,https://CORP.example/login,alice,pw
      lab,http://127.0.0.1:9999/,bob,pw
      www,https://www.corp.example/,carol,pw
      none,,dave,pw

      """
    let routed = try plan(file, backends: ["corp", "lab", "mirror"], baseURLs: urls)
    #expect(actions(routed) == ["2 imported", "3 imported", "4 failed", "5 failed"])
    #expect(routed.entries.compactMap(\.id).map(\.description) == ["alice@corp", "bob@lab"])
    let unmatched = try #require(routed.entries[2].problems.first)
    #expect(unmatched.field == "url" && unmatched.message == "its URL's host (www.corp.example) is the base_url host of no backend")
    #expect(
      unmatched.fix
        == "`--backend NAME` sends such rows to that backend on purpose (import them apart from the others), "
        + "or leave such rows out with --partial")
    #expect(routed.entries[3].problems.first?.field == nil, "no URL: the rule for a row without a backend")

    let chosen = try plan(file, backend: "mirror", backends: ["corp", "lab", "mirror"], baseURLs: urls)
    #expect(chosen.entries.compactMap(\.id).map(\.backend) == ["mirror", "mirror", "mirror", "mirror"], "--backend wins")

    let twice = try plan(
      file, backends: ["corp", "lab", "mirror"], baseURLs: urls.merging(["mirror": "https://corp.example:8443"]) { $1 })
    #expect(
      twice.entries[0].problems.first?.message
        == "its URL's host (corp.example) is the base_url host of several backends (corp, mirror)")
    let bitwarden = try plan(
      ImportFormat.bitwarden.headerRow + "\n,,login,x,,,0,\"https://corp.example/a,https://other.example\",erin,pw,\n",
      backends: ["corp", "lab"], baseURLs: urls)
    #expect(bitwarden.entries.first?.id?.description == "erin@corp", "one of its URIs names corp, none another")

  }

  /// With one backend, a row whose URL names another site (a bank's, a mail provider's) is not
  /// sent there unasked: it fails on its URL column with the fix that sends it on purpose. A
  /// row without an http(s) URL still goes to the only backend; --backend sends every row.
  @Test func withOneBackendARowOfAnotherSiteIsNamedAndOneWithoutAURLGoesThere() throws {
    let file = """
      name,url,username,password
      corp,https://corp.example/login,alice,pw
      bank,https://mybank.example/,bob,pw
      none,,carol,pw
      mail,mailto:dave@mybank.example,dave,pw

      """
    let alone = try plan(file, baseURLs: ["corp": "https://corp.example/api"])
    #expect(actions(alone) == ["2 imported", "3 failed", "4 imported", "5 imported"])
    let bank = try #require(alone.entries[1].problems.first)
    #expect(bank == ImportProblem(
      line: 3, field: "url", message: "its URL's host (mybank.example) is the base_url host of no backend",
      fix: "`--backend corp` sends such rows to corp on purpose (import them apart from the others), "
        + "or leave such rows out with --partial"))
    let sent = try plan(file, backend: "corp", baseURLs: ["corp": "https://corp.example/api"])
    #expect(sent.failures.isEmpty && sent.entries.compactMap(\.id).count == 4, "--backend wins")
    let noBaseURL = try plan(file)
    #expect(actions(noBaseURL) == ["2 failed", "3 failed", "4 imported", "5 imported"], "no base_url names a site")
  }

  /// A non-ASCII host (decomposed, fullwidth) is compared in the ASCII form libidn2 gives it; a
  /// host it has no valid form for, or one whose form is no host name, matches no backend.
  @Test func aNonASCIIHostIsComparedInItsASCIIForm() throws {
    let file = """
      name,url,username,password
      a,https://bücher.example/login,alice,pw
      b,https://ｂüｃｈｅｒ．ｅｘａｍｐｌｅ/,bob,pw
      c,https://bü\u{FFFF}cher.example/,carol,pw
      d,https://ｅｖｉｌ＠ｃｏｒｐ.example/,dave,pw

      """
    let result = try plan(file, baseURLs: ["corp": "https://xn--bcher-kva.example"])
    #expect(actions(result) == ["2 imported", "3 imported", "4 failed", "5 failed"])
    #expect(result.entries[2].problems.first?.message.hasPrefix("its URL's host (bü") == true)
    let other = try plan(file, backends: ["corp", "mail"], baseURLs: ["corp": "https://corp.example", "mail": "https://evil"])
    #expect(other.entries[3].problems.first?.field == "url", "not read as a user evil at corp.example")
  }
}
