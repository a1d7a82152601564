import AccountsContract
import CAccountsAdapter
import Testing

@testable import AdapterHost

/// The oauth2 adapter's settings as the host sees them, and VALIDATE's verdicts on them: no
/// network, each problem one line naming the setting and the fix.
@Suite struct OAuth2SettingsTests {
  static let good = ["token_endpoint": "https://id.example/o/token/", "client_id": "qa"]

  func validate(_ settings: [String: String]) throws -> Step {
    try StepDriver(.validate, settings: settings).start()
  }

  @Test func theDescriptorDeclaresTheSettingsAndTheCheck() throws {
    let description = try StepDriver.load("oauth2").description
    #expect(description.abiText == "1.3")
    #expect(
      description.settings.map(\.name) == [
        "issuer", "token_endpoint", "device_authorization_endpoint", "revocation_endpoint", "introspection_endpoint",
        "userinfo_endpoint", "client_id", "client_secret", "scope", "audience", "grant", "check", "introspection_client_id",
        "introspection_client_secret", "api_base", "allow_insecure_transport",
      ])
    #expect(description.settings.filter(\.isSecret).map(\.name) == ["client_secret", "introspection_client_secret"])
    #expect(description.settings.allSatisfy { $0.isOptional }, "which ones a backend needs depends on the others")
    #expect(description.settings.allSatisfy { !$0.isOneTimeCode && $0.label.utf8.count <= 256 })
    #expect(description.setting(named: "grant")?.defaultValue == "password")
    #expect(description.setting(named: "allow_insecure_transport")?.defaultValue == "false")
    // CHECK asks the provider only with `check`: otherwise the expiry alone decides.
    #expect(description.sessionCheck == .onlyWith(["check"]))
    #expect(!description.sessionCheck.asks(settings: Self.good))
    #expect(description.sessionCheck.asks(settings: Self.good.merging(["check": "userinfo"]) { $1 }))
  }

  @Test func loginNeedsAPersonForTheDeviceGrantOnly() throws {
    let descriptor = try StepDriver.load("oauth2").descriptor
    let loginNeeds = try #require(DescriptorCheck.fields(of: descriptor).login_needs)
    let arena = CArena()
    func needs(_ settings: [(String, String)]) -> UInt32 {
      var pairs = arena.pairs(settings)
      return withUnsafePointer(to: &pairs) { loginNeeds($0) }
    }
    #expect(needs([("grant", "device_code"), ("client_id", "tv")]) == ACC_LOGIN_PERSON)
    #expect(needs([("grant", "password")]) == ACC_LOGIN_PASSWORD)
    #expect(needs([("grant", "client_credentials")]) == ACC_LOGIN_PASSWORD)
    #expect(needs([]) == ACC_LOGIN_PASSWORD, "the default grant")
    #expect(needs([("grant", "unknown")]) == ACC_LOGIN_PASSWORD, "VALIDATE refuses it")
  }

  @Test(arguments: [
    ["token_endpoint": "https://id.example/o/token/", "client_id": "qa"],
    ["issuer": "https://id.example/realms/qa", "client_id": "qa", "client_secret": "s"],
    ["token_endpoint": "https://id.example/t", "grant": "client_credentials"],
    ["issuer": "https://id.example", "client_id": "tv", "grant": "device_code", "check": "userinfo"],
    ["issuer": "https://id.example", "client_id": "qa", "check": "introspection", "introspection_client_id": "rs",
     "introspection_client_secret": "x"],
    ["token_endpoint": "http://localhost:8000/o/token/", "client_id": "qa", "api_base": "http://127.0.0.1:9000/api"],
    ["token_endpoint": "http://id.test/o/token/", "client_id": "qa", "allow_insecure_transport": "true"],
    ["token_endpoint": "https://id.example/t", "client_id": "qa", "scope": "openid profile email:read"],
  ])
  func goodSettings(settings: [String: String]) throws {
    #expect(try validate(settings) == .ok(Done()))
  }

  @Test(arguments: [
    (["client_id": "qa"], "setting token_endpoint is missing; give setting token_endpoint, or issuer to discover it"),
    (["token_endpoint": "https://id.example/t", "client_id": "qa", "grant": "implicit"],
     "setting grant has the unknown value \"implicit\"; accepted: password, client_credentials, device_code"),
    (["token_endpoint": "https://id.example/t", "client_id": "tv", "grant": "device_code"],
     "grant device_code needs the device authorization endpoint; give setting device_authorization_endpoint, or issuer to discover it"),
    (["token_endpoint": "https://id.example/t"],
     "setting client_id is missing; it is required with grant password (the id the provider registered the client under)"),
    (["token_endpoint": "https://id.example/t", "grant": "client_credentials", "client_secret": "s"],
     "setting client_secret is given without client_id; give client_id too"),
    (["token_endpoint": "id.example/t", "client_id": "qa"],
     "setting token_endpoint must be an http:// or https:// URL without spaces, query or fragment, e.g. https://id.example.com/oauth2/token, not \"id.example/t\""),
    (["issuer": "https://id.example/realms/qa#x", "client_id": "qa"],
     "setting issuer must be an http:// or https:// URL without spaces, query or fragment, e.g. https://id.example.com/realms/qa, not \"https://id.example/realms/qa\""),
    (["token_endpoint": "http://id.example/t", "client_id": "qa"],
     "setting token_endpoint is plain http:// to \"id.example\", which is not this machine; use https://, or set allow_insecure_transport=true for a test server"),
    (["token_endpoint": "https://id.example/t", "revocation_endpoint": "http://10.0.0.1/r", "client_id": "qa"],
     "setting revocation_endpoint is plain http:// to \"10.0.0.1\", which is not this machine; use https://, or set allow_insecure_transport=true for a test server"),
    (["token_endpoint": "https://id.example/t", "client_id": "qa", "api_base": "http://api.example"],
     "setting api_base is plain http:// to \"api.example\", which is not this machine; use https://, or set allow_insecure_transport=true for a test server"),
    (["token_endpoint": "https://id.example/t", "client_id": "qa", "allow_insecure_transport": "yes"],
     "setting allow_insecure_transport has the unknown value \"yes\"; accepted: true, false"),
    (["token_endpoint": "https://id.example/t", "client_id": "qa", "check": "jwt"],
     "setting check has the unknown value \"jwt\"; accepted: introspection, userinfo, empty for the expiry alone"),
    (["token_endpoint": "https://id.example/t", "client_id": "qa", "client_secret": "s", "check": "introspection"],
     "check introspection needs the introspection endpoint; give setting introspection_endpoint, or issuer to discover it"),
    (["token_endpoint": "https://id.example/t", "client_id": "qa", "check": "userinfo"],
     "check userinfo needs the userinfo endpoint; give setting userinfo_endpoint, or issuer to discover it"),
    (["issuer": "https://id.example", "client_id": "qa", "check": "introspection"],
     "check introspection needs the resource server's credentials: set introspection_client_id and introspection_client_secret (or client_id and client_secret)"),
    (["issuer": "https://id.example", "client_id": "qa", "check": "introspection", "introspection_client_id": "rs"],
     "setting introspection_client_secret is missing; it is required with introspection_client_id"),
    (["issuer": "https://id.example", "client_id": "qa", "client_secret": "s", "check": "introspection", "introspection_client_secret": "x"],
     "setting introspection_client_secret is given without introspection_client_id; give introspection_client_id too"),
    (["token_endpoint": "https://id.example/t", "client_id": "qa", "scope": "openid \"all\""],
     "setting scope must be scope names separated by spaces, e.g. \"openid profile\", not \"openid \\\"all\\\"\""),
  ])
  func badSettings(settings: [String: String], message: String) throws {
    #expect(try validate(settings) == .error(message))
  }

  /// The same checks run before every operation: a LOGIN with bad settings sends nothing.
  @Test func everyOperationChecksTheSettingsFirst() throws {
    #expect(
      try StepDriver(.login(), settings: ["token_endpoint": "http://id.example/t", "client_id": "qa"]).start()
        == .error("setting token_endpoint is plain http:// to \"id.example\", which is not this machine; use https://, or set allow_insecure_transport=true for a test server"))
  }
}
