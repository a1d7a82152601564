@testable import AccountsCore
import Testing

/// The configuration's own rules, before it is written: which backend a new account is on.
@Suite struct ConfigurationTests {
  @Test func picksTheBackendForANewAccount() throws {
    var configuration = try Configuration()
    #expect(throws: ConfigurationError.noBackends) { try configuration.backendForNewAccount(requested: nil) }
    try configuration.add(BackendConfig(name: "corp", adapter: "plain"))
    #expect(try configuration.backendForNewAccount(requested: nil).name == "corp")
    try configuration.add(BackendConfig(name: "test", adapter: "plain"))
    #expect(throws: ConfigurationError.backendNeeded(["corp", "test"])) { try configuration.backendForNewAccount(requested: nil) }
    #expect(try configuration.backendForNewAccount(requested: "test").name == "test")
    #expect(throws: ConfigurationError.unknownBackend("crop", suggestions: ["corp"])) { try configuration.backendForNewAccount(requested: "crop") }
  }
}
