import AccountsCore
import Testing

@Suite struct BackendSettingsTests {
  let signed = AdapterDescription(
    name: "signed", version: "1.0.0", summary: "signed requests", abiVersion: 0x10000,
    settings: [
      AdapterSetting(name: "base_url", label: "Base URL"),
      AdapterSetting(name: "app_id", label: "App id"),
      AdapterSetting(name: "private_key", label: "Signing key", isSecret: true),
      AdapterSetting(name: "hmac_key", label: "Optional key", isSecret: true, isOptional: true),
      AdapterSetting(name: "plat", label: "Platform", isOptional: true, defaultValue: "linux"),
    ],
    path: "/x/signed.so")

  @Test func completeSettingsHaveNoProblems() {
    let check = BackendSettingsCheck(adapter: signed)
    #expect(check.problems(settings: ["base_url": "u", "app_id": "a"], secretNames: ["private_key"]).isEmpty)
  }

  @Test func unknownSettingsAreNamedWithSuggestions() {
    let problems = BackendSettingsCheck(adapter: signed)
      .problems(settings: ["base_url": "u", "app_idd": "a"], secretNames: ["private_key"])
    #expect(problems == [.unknown(name: "app_idd", suggestions: ["app_id"]), .missing(name: "app_id", label: "App id")])
    #expect(problems[0].description == "adapter has no setting 'app_idd'; did you mean 'app_id'?")
  }

  @Test func secretsGivenInClearAndMissingSecretsAreProblems() {
    let problems = BackendSettingsCheck(adapter: signed)
      .problems(settings: ["base_url": "u", "app_id": "a", "private_key": "leaked"], secretNames: [])
    #expect(problems.contains(.secretGivenInClear(name: "private_key")))
    #expect(problems.contains(.missingSecret(name: "private_key", label: "Signing key")))
    #expect(!problems.description.contains("leaked"))
  }

  @Test func requiredSecretsAreAskedAndOptionalOnesOnlyWhenWanted() {
    let check = BackendSettingsCheck(adapter: signed)
    #expect(check.secretsToAsk(wanted: []).map(\.name) == ["private_key"])
    #expect(check.secretsToAsk(wanted: ["hmac_key"]).map(\.name) == ["private_key", "hmac_key"])
  }
}
