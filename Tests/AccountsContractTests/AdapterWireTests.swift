import AccountsContract
import AccountsJSON
import Testing

/// What `accounts __probe-adapters` writes for the command that started it: an adapter file's
/// entry (its description, its session check included, or why it was refused) and a load
/// error, read back to what was written.
@Suite struct AdapterWireTests {
  static func readBack(_ entry: AdapterEntry) throws -> AdapterEntry {
    try AdapterEntry(wireReader: JSONReader(try JSON.parse(JSON.serialize(entry.wireValue, pretty: false))))
  }

  @Test(arguments: [AdapterDescription.SessionCheck.undeclared, .onlyWith([]), .onlyWith(["check_path"])])
  func describedEntriesReadBack(check: AdapterDescription.SessionCheck) throws {
    let description = AdapterDescription(
      name: "plain", version: "1.0.0", summary: "form login", abiVersion: 1 << 16 | 2,
      settings: [
        AdapterSetting(name: "base_url", label: "Base URL"),
        AdapterSetting(name: "check_path", label: "Check", isOptional: true),
        AdapterSetting(name: "key", label: "Key", isSecret: true, isOneTimeCode: true, defaultValue: "k"),
      ],
      path: "/usr/lib/accounts/adapters/libplain.so", sessionCheck: check)
    let entry = AdapterEntry(path: description.path, name: "plain", description: description)
    #expect(try Self.readBack(entry) == entry)
  }

  @Test func refusedEntriesAndLoadErrorsReadBack() throws {
    let refused = AdapterEntry(path: "/x/bad.so", name: "bad", refusal: "crashed while loading (SIGSEGV)")
    #expect(try Self.readBack(refused) == refused)
    for error: AdapterLoadError in [
      .hostMissing(detail: "gone", fix: "reinstall"), .hostMissing(detail: "gone", fix: nil),
      .notFound(name: "x", searched: ["/a", "/b"], known: ["plain"]), .refused(path: "/x/bad.so", reason: "no entry"),
    ] {
      #expect(AdapterLoadError(wireText: error.wireText) == error)
    }
    #expect(AdapterLoadError(wireText: "{") == .hostMissing(detail: "unreadable error from the adapter host"))
  }
}
