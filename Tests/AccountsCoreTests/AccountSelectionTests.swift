import AccountsContract
import AccountsCore
import AccountsSystem
import Testing

/// Which saved accounts `list`, `export`, `login --stale` and `lease` act on.
@Suite struct AccountSelectionTests {
  let at = Timestamp(secondsSince1970: 1_800_000_000)
  let qa1 = AccountID(user: "qa1", backend: "corp")
  let qa2 = AccountID(user: "qa2", backend: "corp")
  let me = AccountID(user: "me", backend: "home")

  var book: AccountBook {
    get throws {
      try AccountBook(
        accounts: [
          Account(id: me, addedAt: at, tags: ["dev"]), Account(id: qa1, addedAt: at, tags: ["qa", "smoke"]),
          Account(id: qa2, addedAt: at, tags: ["qa"]),
        ], autoLogin: nil, previousAutoLogin: nil)
    }
  }

  var configuration: Configuration {
    get throws {
      try Configuration(backends: [BackendConfig(name: "corp", adapter: "plain"), BackendConfig(name: "home", adapter: "plain")])
    }
  }

  func ids(_ selection: AccountSelection, everyAccount: Bool = true) throws -> [AccountID] {
    try selection.ids(in: book, configuration: configuration, everyAccount: everyAccount, command: "lease", trailing: " -- CMD")
  }

  @Test func tagsAreCheckedBeforeAnythingIsRead() {
    #expect(throws: CommandError.self) { try AccountSelection(tags: ["qa", "-x"]) }
    #expect(throws: CommandError.usage("the tag is empty", fix: "a tag is one word of \(Tags.rule)")) {
      try AccountSelection(tags: [""])
    }
  }

  @Test func everyTagMustMatchAndTheBackendNarrows() throws {
    #expect(try ids(AccountSelection(tags: ["qa"])) == [qa1, qa2])
    #expect(try ids(AccountSelection(tags: ["qa", "smoke"])) == [qa1])
    #expect(try ids(AccountSelection()) == [me, qa1, qa2], "neither names nor tags: every account")
    #expect(try ids(AccountSelection(backend: "home")) == [me])
    let none = #expect(throws: CommandError.self) { try ids(AccountSelection(tags: ["nightly"])) }
    #expect(none?.status == .loginRequired)
    #expect(none?.message == "no saved account has the tag nightly")
    #expect(none?.fix == "tag some with `accounts tag USER nightly`")
  }

  @Test func listingFindsNoneWithoutAnErrorButNamesAnUnknownBackend() throws {
    #expect(try AccountSelection(tags: ["nightly"]).tagged(in: book, configuration: { try configuration }).isEmpty)
    #expect(throws: ConfigurationError.self) {
      try AccountSelection(backend: "crop").tagged(in: book, configuration: { try configuration })
    }
    var read = false
    _ = try AccountSelection(tags: ["qa"]).tagged(in: book, configuration: {
      read = true
      return try configuration
    })
    #expect(!read, "the configuration is read only for a backend no account is on")
  }

  @Test func namesAreResolvedOnceEachInTheirOrder() throws {
    #expect(try ids(AccountSelection(names: ["qa2", "qa1@corp", "qa2"])) == [qa2, qa1])
    #expect(throws: AccountLookupError.self) { try ids(AccountSelection(names: ["zed"])) }
    #expect(throws: ConfigurationError.self) { try ids(AccountSelection(names: ["qa1"], backend: "crop")) }
  }

  @Test func namesAndTagsTogetherOrNeitherWhereOneIsNeededAreRefused() throws {
    let both = #expect(throws: CommandError.self) { try ids(AccountSelection(names: ["qa1"], tags: ["qa"])) }
    #expect(both?.message == "name the accounts or give --tag, not both")
    #expect(both?.fix == "e.g. `accounts lease --tag qa -- CMD` or `accounts lease qa1 qa2 -- CMD`")
    let neither = #expect(throws: CommandError.self) { try ids(AccountSelection(), everyAccount: false) }
    #expect(neither?.message == "lease from which accounts?")
  }
}
