import AccountsContract
import AccountsCore
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCLI

/// `accounts backend set NAME KEY=VALUE... [--unset KEY]`, run in process: the settings changed
/// in place and said one line each, or refused before anything is written.
@Suite struct BackendSetCommandTests {
  let world: TestEnvironment

  init() throws {
    world = try TestEnvironment()
    world.host.declared = [
      AdapterSetting(name: "base_url", label: "Base URL"),
      AdapterSetting(name: "check_path", label: "Check path", isOptional: true),
    ]
    try world.addBackend(settings: ["base_url": "https://api.corp.example"])
  }

  func settings() throws -> [String: String] { try #require(try world.configuration["corp"]).settings }

  @Test func aSettingIsGivenAndSaidWithWhatItWas() throws {
    let result = world.run("backend", "set", "corp", "check_path=me")
    #expect(result.status == .success)
    #expect(result.messages == ["backend corp: check_path=me (was not set)"])
    #expect(result.output.isEmpty)
    #expect(try settings() == ["base_url": "https://api.corp.example", "check_path": "me"])
    #expect(world.host.operations == ["validate"], "the adapter checked the result")
  }

  @Test func anOptionalSettingIsUnset() throws {
    _ = world.run("backend", "set", "corp", "check_path=me")
    let result = world.run("backend", "set", "corp", "--unset", "check_path")
    #expect(result.status == .success)
    #expect(result.messages == ["backend corp: check_path unset (was me)"])
    #expect(try settings() == ["base_url": "https://api.corp.example"])
  }

  @Test func aRequiredSettingCannotBeUnsetAndNothingChanges() throws {
    let result = world.run("backend", "set", "corp", "--unset", "base_url")
    #expect(result.status == .usage)
    #expect(result.error?.fix == "give it another value with `accounts backend set corp base_url=VALUE`")
    #expect(try settings() == ["base_url": "https://api.corp.example"])
    #expect(world.host.operations.isEmpty, "refused before the adapter's check")
  }

  @Test func aSettingTheAdapterDoesNotDeclareIsRefused() throws {
    let result = world.run("backend", "set", "corp", "chek_path=me")
    #expect(result.status == .usage)
    #expect(result.error?.message.contains("chek_path") == true, "\(String(describing: result.error?.message))")
    #expect(try settings() == ["base_url": "https://api.corp.example"])
  }

  @Test func anUnknownBackendIsAUsageErrorWithASuggestion() {
    let result = world.run("backend", "set", "crop", "check_path=me")
    #expect(result.status == .usage)
    #expect(result.error?.message == "no backend 'crop'")
    #expect(result.error?.fix?.contains("'corp'") == true, "\(String(describing: result.error?.fix))")
  }
}
