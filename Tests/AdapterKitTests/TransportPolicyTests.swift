import Testing

@testable import AdapterKit

/// Where credentials may go: https anywhere, plain http to this machine only, unless the
/// backend allows insecure transport.
@Suite struct TransportPolicyTests {
  let strict = TransportPolicy(allowsInsecure: false)

  @Test(arguments: [
    "https://id.example.com/token", "HTTPS://id.example.com", "http://localhost/o/token/",
    "http://localhost:8000/o", "http://LOCALHOST.:8000", "http://127.0.0.1:8000/o/token/",
    "http://127.1.2.3/x", "http://[::1]:8000/o",
  ])
  func permitted(url: String) {
    #expect(strict.permits(url))
  }

  @Test(arguments: [
    "http://id.example.com/token", "http://localhost.evil.example/", "http://127.0.0.1.evil.example/",
    "http://128.0.0.1/", "http://[::2]/", "http://10.0.0.1:8000/",
    // Parsers disagree on the host of these: never taken for this machine.
    "http://evil.example@127.0.0.1/", "http://evil.example\\@127.0.0.1/", "http://127.0.0.1\\@evil.example/",
  ])
  func refused(url: String) {
    #expect(!strict.permits(url))
    #expect(TransportPolicy(allowsInsecure: true).permits(url), "allowed for a test server")
  }

  @Test func theRefusalNamesTheSettingTheHostAndBothFixes() {
    #expect(
      strict.refusal("http://user:pw@id.example.com:8080/token", what: "setting token_endpoint").message
        == "setting token_endpoint is plain http:// to \"id.example.com\", which is not this machine; use "
        + "https://, or set allow_insecure_transport=true for a test server")
  }

  @Test func theSettingIsTrueOrFalse() throws {
    let definitions = [SettingDefinition("allow_insecure_transport", "x", flags: .optional, default: "false")]
    #expect(try !TransportPolicy(Settings(definitions: definitions, [:])).allowsInsecure)
    #expect(try TransportPolicy(Settings(definitions: definitions, ["allow_insecure_transport": "true"])).allowsInsecure)
    #expect(
      errorMessage { () throws(AdapterError) in
        try TransportPolicy(Settings(definitions: definitions, ["allow_insecure_transport": "yes"]))
      } == "setting allow_insecure_transport has the unknown value \"yes\"; accepted: true, false")
  }
}
