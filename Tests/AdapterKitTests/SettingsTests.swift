import Testing

@testable import AdapterKit

@Suite struct SettingsTests {
  static let definitions =
    BackendSettings.definitions + [
      SettingDefinition("mode", "a choice", flags: .optional, default: "one"),
      SettingDefinition("key", "a secret", flags: .secret),
      SettingDefinition("flag", "a flag", flags: .optional, default: "false"),
    ]

  @Test func givenValuesDefaultsAndEmptyValues() {
    let settings = Settings(
      definitions: Self.definitions,
      ["base_url": "https://x", "login_path": "", "undeclared": "y", "key": "s3cret"])
    #expect(settings.given("base_url") == "https://x")
    #expect(settings.given("login_path") == nil, "empty counts as left out")
    #expect(settings.value("login_path") == "login", "so the default applies")
    #expect(settings.value("check_path") == "", "no default")
    #expect(settings.given("undeclared") == nil, "undeclared names are ignored")
    #expect(settings.given("key") == nil, "secrets are not readable as text")
    #expect(settings.secret("key")?.text == "s3cret")
  }

  @Test func requiredValuesAndSecretsNameTheSetting() {
    let settings = Settings(definitions: Self.definitions, [:])
    #expect(
      errorMessage { () throws(AdapterError) in try settings.required("base_url") }
        == "setting base_url is missing; it is required")
    #expect(
      errorMessage { () throws(AdapterError) in try settings.requiredSecret("key") }
        == "setting key is missing; it is required")
  }

  @Test func choicesNameTheBadValueAndTheAcceptedOnes() throws {
    let good = Settings(definitions: Self.definitions, ["mode": "two"])
    #expect(try good.choice("mode", ["one": 1, "two": 2]) == 2)
    #expect(try Settings(definitions: Self.definitions, [:]).choice("mode", ["one": 1]) == 1)
    let bad = Settings(definitions: Self.definitions, ["mode": "Two\n", "flag": "yes"])
    #expect(
      errorMessage { () throws(AdapterError) in try bad.choice("mode", ["one": 1, "two": 2]) }
        == #"setting mode has the unknown value "Two\n"; accepted: one, two"#)
    #expect(
      errorMessage { () throws(AdapterError) in try bad.flag("flag") }
        == #"setting flag has the unknown value "yes"; accepted: true, false"#)
  }

  enum Mode: String, CaseIterable {
    case one
    case twoWords = "two-words"
  }

  @Test func choicesOfAnEnumUseItsRawValues() throws {
    #expect(try Settings(definitions: Self.definitions, [:]).choice("mode", of: Mode.self) == .one)
    let given = Settings(definitions: Self.definitions, ["mode": "two-words"])
    #expect(try given.choice("mode", of: Mode.self) == .twoWords)
    let bad = Settings(definitions: Self.definitions, ["mode": "twoWords"])
    #expect(
      errorMessage { () throws(AdapterError) in try bad.choice("mode", of: Mode.self) }
        == #"setting mode has the unknown value "twoWords"; accepted: one, two-words"#)
  }

  @Test func backendSettingsCheckTheURLAndTheCodes() throws {
    let backend = try BackendSettings(
      Settings(
        definitions: Self.definitions,
        ["base_url": "http://h/api/", "check_path": "/check", "codes": "-7=kicked"]))
    #expect(backend.baseURL == "http://h/api")
    #expect(backend.isPlainHTTP)
    #expect(backend.url(backend.loginPath) == "http://h/api/login")
    #expect(backend.checkPath == "/check")
    #expect(backend.logoutPath == nil)
    #expect(backend.codes[-7] == .kicked)
    #expect(backend.codes[-100] == .expired)

    let message = errorMessage { () throws(AdapterError) in
      try BackendSettings(
        Settings(definitions: Self.definitions, ["base_url": "https://h", "codes": "x=y"]))
    }
    #expect(message?.hasPrefix(#"setting codes has the unknown entry "x=y""#) == true)
  }

  @Test func messagesQuoteAndFlattenForeignText() {
    #expect(Message.quoted("a\"b\\c\u{1B}") == #""a\"b\\c\u{1b}""#)
    #expect(Message.oneLine("  one\ntwo\r\n ") == "one two")
    #expect(Message.oneLine(String(repeating: "é", count: 10), limit: 3) == "ééé…")
    #expect(Message.oneLine("a\u{2028}b\u{85}c") == "a b c")
  }
}
