import AccountsContract
@testable import AccountsCore
import AccountsSystem
import Testing

/// What `backend add` and `backend set` may do to a backend's settings: the rules both commands
/// follow, before any secret is asked for or the keyring touched.
@Suite struct BackendSettingsRequestTests {
  let signed = AdapterDescription(
    name: "signed", version: "1", summary: "", abiVersion: 1 << 16,
    settings: [
      AdapterSetting(name: "base_url", label: "URL"), AdapterSetting(name: "app_id", label: "app id"),
      AdapterSetting(name: "private_key", label: "the key", isSecret: true),
      AdapterSetting(name: "check_path", label: "check", isOptional: true),
      AdapterSetting(name: "otp_key", label: "otp", isSecret: true, isOptional: true),
    ], path: "/x/signed.so")

  var corp: BackendConfig {
    BackendConfig(
      name: "corp", adapter: "signed", settings: ["base_url": "https://api.corp.example", "app_id": "a1", "check_path": "me"],
      secretSettings: ["private_key"])
  }

  @Test func settingsAreKeyValueWordsEachGivenOnce() throws {
    #expect(try BackendSettingsRequest.parseSettings(["a=1", "b_c=x=y", "e="]) == ["a": "1", "b_c": "x=y", "e": ""])
    #expect(throws: CommandError.usage("--set 'nope' is not KEY=VALUE", fix: "write it as --set base_url=https://...")) {
      try BackendSettingsRequest.parseSettings(["nope"])
    }
    #expect(throws: CommandError.self) { try BackendSettingsRequest.parseSettings(["=v"]) }
    #expect(throws: CommandError.self) { try BackendSettingsRequest.parseSettings(["Bad-Key=v"]) }
    #expect(throws: CommandError.usage("a is given twice")) { try BackendSettingsRequest.parseSettings(["a=1", "a=2"], option: "") }
  }

  @Test func aNewBackendAsksForTheRequiredSecretsAndTheOptionalOnesWanted() throws {
    let plain = BackendSettingsRequest(given: ["base_url": "https://x.example", "app_id": "a"])
    #expect(try plain.newBackend("corp", adapter: signed).map(\.name) == ["private_key"])
    let wanting = BackendSettingsRequest(
      given: ["base_url": "https://x.example", "app_id": "a"], secrets: ["otp_key", "lease_store_password"])
    let asked = try wanting.newBackend("corp", adapter: signed)
    #expect(asked.map(\.name) == ["private_key", "otp_key", "lease_store_password"])
    #expect(asked.last?.label == "the lease store's Redis password")
  }

  @Test func aNewBackendsProblemsAreRefusedBeforeAnySecret() throws {
    let missing = BackendSettingsRequest(given: ["base_url": "https://x.example"])
    let error = #expect(throws: CommandError.self) { try missing.newBackend("corp", adapter: signed) }
    #expect(error?.message == "backend corp: setting app_id is required (app id)")
    let clear = BackendSettingsRequest(given: ["base_url": "https://x.example", "app_id": "a", "private_key": "k"])
    let secretError = #expect(throws: CommandError.self) { try clear.newBackend("corp", adapter: signed) }
    #expect(secretError?.message.contains("'private_key' is a secret setting") == true)
    let unknownSecret = BackendSettingsRequest(given: ["base_url": "https://x.example", "app_id": "a"], secrets: ["app_id"])
    #expect(throws: CommandError.usage("adapter signed has no secret setting 'app_id'", fix: "its settings: `accounts adapters signed`")) {
      try unknownSecret.newBackend("corp", adapter: signed)
    }
    let store = BackendSettingsRequest(given: ["base_url": "https://x.example", "app_id": "a", "lease_store": "http://nope"])
    let storeError = #expect(throws: CommandError.self) { try store.newBackend("corp", adapter: signed) }
    #expect(storeError?.message.hasPrefix("backend corp: lease_store ") == true)
    #expect(storeError?.fix != "`accounts adapters signed` lists its settings", "an own setting's fix names its value")
  }

  @Test func aChangeMergesGivenValuesRemovesUnsetOnesAndKeepsTheOtherSecrets() throws {
    let change = BackendSettingsRequest(given: ["app_id": "a2"], unset: ["check_path"], secrets: ["otp_key"])
    let result = try change.applied(to: corp, adapter: signed)
    #expect(result.settings == ["base_url": "https://api.corp.example", "app_id": "a2"])
    #expect(result.secretNames == ["private_key", "otp_key"])
    #expect(result.kept == ["private_key"], "read for the adapter's check; the asked one is new")
  }

  @Test func aChangeIsRefusedWhenItChangesNothingOrContradictsItself() throws {
    #expect(throws: CommandError.self) { try BackendSettingsRequest().applied(to: corp, adapter: signed) }
    #expect(throws: CommandError.usage("check_path is both given a value and unset", fix: "give one of them")) {
      try BackendSettingsRequest(given: ["check_path": "x"], unset: ["check_path"]).checkChange(of: "corp")
    }
    #expect(throws: CommandError.self) {
      try BackendSettingsRequest(unset: ["otp_key"], secrets: ["otp_key"]).checkChange(of: "corp")
    }
  }

  @Test func onlyWhatIsThereAndNotRequiredCanBeUnset() throws {
    let absent = #expect(throws: CommandError.self) {
      try BackendSettingsRequest(unset: ["chek_path"]).applied(to: corp, adapter: signed)
    }
    #expect(absent?.message == "backend corp has no setting 'chek_path' to unset; did you mean 'check_path'?")
    let required = #expect(throws: CommandError.self) {
      try BackendSettingsRequest(unset: ["private_key"]).applied(to: corp, adapter: signed)
    }
    #expect(required?.fix == "replace it with `accounts backend set corp --secret private_key`")
    let requiredValue = #expect(throws: CommandError.self) {
      try BackendSettingsRequest(unset: ["app_id"]).applied(to: corp, adapter: signed)
    }
    #expect(requiredValue?.fix == "give it another value with `accounts backend set corp app_id=VALUE`")
  }

  /// A setting the adapter no longer declares (it changed since the backend was added) is
  /// named with the unset that removes it, not with the adapter's list.
  @Test func aSettingTheAdapterDropsIsRemovedByUnset() throws {
    var old = corp
    old.settings["retired"] = "x"
    let error = #expect(throws: CommandError.self) {
      try BackendSettingsRequest(given: ["app_id": "a3"]).applied(to: old, adapter: signed)
    }
    #expect(error?.fix == "remove it with `accounts backend set corp --unset retired`")
  }

  @Test func theReportNamesEveryChangeAndNoSecretValue() throws {
    let request = BackendSettingsRequest(given: ["app_id": "a2", "base_url": "https://api.corp.example"], unset: ["check_path", "private_key"])
    var after = corp
    after.settings["app_id"] = "a2"
    let change = Ledger.BackendChange(before: corp, after: after, leftInKeyring: [])
    #expect(request.report(change) == [
      "app_id=a2 (was a1)", "base_url=https://api.corp.example (unchanged)", "check_path unset (was me)",
      "private_key unset and deleted from the keyring",
    ])
  }
}
