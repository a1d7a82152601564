import AccountsCLI

/// man/accounts-adapter.7: how to write an adapter. `example` is the text of
/// Tests/Fixtures/adapters/example.c, embedded verbatim in EXAMPLE.
///
/// The page is data (AdapterManual+Text.swift and the files beside it) rendered by ManualPage.
/// The header's date and version are VERSION's, so the file changes only when its text, the
/// example or the release does.
enum AdapterManual {
  typealias Section = ManualPage.Section
  typealias Block = ManualPage.Block

  static func roff(
    example: String, version: String = AccountsCommandLine.version, date: String = AccountsCommandLine.releaseDate
  ) -> String {
    ManualPage(
      source: "AdapterManual+Text.swift and example.c", title: "ACCOUNTS-ADAPTER", section: 7,
      manual: "Miscellaneous Information Manual", sections: sections(example: example)
    ).roff(version: version, date: date)
  }
}
