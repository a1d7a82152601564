import CAccountsAdapter
import Testing

@testable import AdapterKit

/// A minimal adapter for driving AdapterKit's C side in-process: LOGIN sends one GET to
/// base_url and returns the reply body with a fixed token.
private enum EchoAdapter: Adapter {
  static let name: StaticString = "echo"
  static let version: StaticString = "1.0.0"
  static let summary: StaticString = "Echoes"
  static let settings = [
    SettingDefinition("base_url", "Where"),
    SettingDefinition("key", "A key", flags: [.secret, .optional]),
    SettingDefinition("mode", "A mode", flags: .optional, default: "fast"),
  ]

  static func makeSession(for configuration: SessionConfiguration, host: any HostServices)
    throws(AdapterError) -> any AdapterSession
  {
    let base = try URLBuilder.checkedBase(
      configuration.settings.required("base_url"), setting: "base_url")
    let code = String(decoding: configuration.oneTimeCode.unprotectedBytes, as: UTF8.self)
    return EchoSession(url: base + "/" + configuration.user + (code.isEmpty ? "" : "?code=" + code))
  }
}

private final class EchoSession: AdapterSession {
  let url: String
  init(url: String) { self.url = url }

  func start() throws(AdapterError) -> StepResult {
    .send(Request(method: "GET", url: url, headers: [Pair("A", "b")]))
  }

  func resume(with response: Response) throws(AdapterError) -> StepResult {
    .ok(
      token: "tok", expiresIn: 60, sessionValues: [Pair("userId", "\(response.status)")],
      body: response.body)
  }
}

private let exported = ExportedAdapter(EchoAdapter.self) { config in
  newSession(EchoAdapter.self, config)
}

private func makeDriver() throws -> DescriptorDriver { try DescriptorDriver(exported) }

@Suite struct ExportedAdapterTests {
  @Test func theDescriptorDescribesTheAdapter() throws {
    let descriptor = try makeDriver().descriptor
    #expect(descriptor.abi_version == 0x0001_0003)
    #expect(descriptor.flags == 0, "an adapter that does not declare its CHECK: every one runs")
    #expect(descriptor.login_needs == nil, "an adapter that passes none: LOGIN takes the password")
    #expect(text(descriptor.name) == "echo")
    #expect(text(descriptor.version) == "1.0.0")
    #expect(text(descriptor.description) == "Echoes")
    let settings = UnsafeBufferPointer(start: descriptor.settings, count: descriptor.settings_count)
    #expect(settings.map { text($0.name) } == ["base_url", "key", "mode"])
    #expect(
      settings.map(\.flags) == [0, ACC_SETTING_SECRET | ACC_SETTING_OPTIONAL, ACC_SETTING_OPTIONAL])
    #expect(settings.map { text($0.default_value) } == ["", "", "fast"])
  }

  @Test func onlyHostsOfMajorVersionOneGetIt() {
    #expect(exported.descriptor(forHost: 0x0001_0000) != nil)
    #expect(exported.descriptor(forHost: 0x0001_0007) != nil, "a newer minor host is fine")
    #expect(exported.descriptor(forHost: 0x0002_0000) == nil)
    #expect(exported.descriptor(forHost: 0) == nil)
  }

  @Test func theConstantsMatchTheHeader() {
    #expect(Operation.login.rawValue == ACC_OP_LOGIN)
    #expect(Operation.check.rawValue == ACC_OP_CHECK)
    #expect(Operation.logout.rawValue == ACC_OP_LOGOUT)
    #expect(Operation.call.rawValue == ACC_OP_CALL)
    #expect(Operation.validate.rawValue == ACC_OP_VALIDATE)
    #expect(Operation.refresh.rawValue == ACC_OP_REFRESH)
    #expect(LoginNeeds.password.rawValue == ACC_LOGIN_PASSWORD)
    #expect(LoginNeeds.person.rawValue == ACC_LOGIN_PERSON)
    #expect(StepResult.maximumDelayMilliseconds == 60_000)
    #expect(SettingFlags.secret.rawValue == ACC_SETTING_SECRET)
    #expect(SettingFlags.optional.rawValue == ACC_SETTING_OPTIONAL)
    #expect(SettingFlags.perAccount.rawValue == ACC_SETTING_PER_ACCOUNT)
    #expect(SettingFlags.oneTimeCode.rawValue == ACC_SETTING_ONE_TIME_CODE)
    #expect(DigestAlgorithm.md5.rawValue == ACC_DIGEST_MD5)
    #expect(DigestAlgorithm.sha256.rawValue == ACC_DIGEST_SHA256)
    #expect(LogLevel.warning.rawValue == ACC_LOG_WARNING)
  }

  @Test func theOneTimeCodeIsReadOnlyWhenTheHostsConfigurationHasIt() throws {
    let driver = try makeDriver()
    let settings = [Pair("base_url", "https://x/")]
    let current = driver.newSession(operation: ACC_OP_LOGIN, settings: settings, code: "287082")
    defer { driver.descriptor.session_free?(current) }
    #expect(text(driver.step(current).out.request.url) == "https://x/bob?code=287082")
    // A 1.0 host's configuration ends before one_time_code: what lies beyond is not read.
    let oldSize = try #require(MemoryLayout<acc_session_config>.offset(of: \.one_time_code))
    let old = driver.newSession(operation: ACC_OP_LOGIN, settings: settings, code: "287082", configSize: oldSize)
    defer { driver.descriptor.session_free?(old) }
    #expect(text(driver.step(old).out.request.url) == "https://x/bob")
  }

  @Test func aLoginSendsThenSucceedsThenRefusesMoreSteps() throws {
    let driver = try makeDriver()
    let session = driver.newSession(
      operation: ACC_OP_LOGIN, settings: [Pair("base_url", "https://x/")])
    defer { driver.descriptor.session_free?(session) }

    let first = driver.step(session)
    #expect(first.code == ACC_STEP_SEND)
    #expect(text(first.out.request.method) == "GET")
    #expect(text(first.out.request.url) == "https://x/bob")
    #expect(first.out.request.headers.pairs == [Pair("A", "b")])
    #expect(first.out.request.body.length == 0)

    let second = driver.step(session, status: 201, body: #"{"a":1}"#)
    #expect(second.code == ACC_STEP_OK)
    #expect(text(second.out.token) == "tok")
    #expect(second.out.expires_in == 60)
    #expect(second.out.session_values.pairs == [Pair("userId", "201")])
    #expect(text(second.out.body) == #"{"a":1}"#)
    #expect(second.out.message.length == 0)

    let third = driver.step(session, status: 200)
    #expect(third.code == ACC_STEP_ERROR)
    #expect(text(third.out.message) == "the host called step after the session's final result")
  }

  @Test func aMissingResponseMidSessionIsAnError() throws {
    let driver = try makeDriver()
    let session = driver.newSession(
      operation: ACC_OP_LOGIN, settings: [Pair("base_url", "https://x")])
    defer { driver.descriptor.session_free?(session) }
    #expect(driver.step(session).code == ACC_STEP_SEND)
    let second = driver.step(session)
    #expect(second.code == ACC_STEP_ERROR)
    #expect(
      text(second.out.message) == "the host called step without the response to the last request")
  }

  @Test func validateChecksTheSettingsWithoutARequest() throws {
    let driver = try makeDriver()
    let good = driver.newSession(
      operation: ACC_OP_VALIDATE, settings: [Pair("base_url", "https://x")])
    let ok = driver.step(good)
    #expect(ok.code == ACC_STEP_OK)
    #expect(ok.out.request.url.length == 0)
    driver.descriptor.session_free?(good)

    let bad = driver.newSession(operation: ACC_OP_VALIDATE, settings: [Pair("mode", "slow")])
    let error = driver.step(bad)
    #expect(error.code == ACC_STEP_ERROR)
    #expect(text(error.out.message) == "setting base_url is missing; it is required")
    driver.descriptor.session_free?(bad)
  }

  @Test func unknownOperationsAndMissingSessionsAreErrors() throws {
    let driver = try makeDriver()
    let session = driver.newSession(operation: 42, settings: [Pair("base_url", "https://x")])
    let result = driver.step(session)
    #expect(result.code == ACC_STEP_ERROR)
    #expect(text(result.out.message) == "unknown operation 42")
    driver.descriptor.session_free?(session)

    let none = driver.step(nil)
    #expect(none.code == ACC_STEP_ERROR)
    #expect(text(none.out.message) == "the host called step without a session")
    driver.descriptor.session_free?(nil)
  }

  @Test func fieldsBeyondTheHostsOutputSizeAreNotWritten() throws {
    let driver = try makeDriver()
    let session = driver.newSession(operation: ACC_OP_VALIDATE, settings: [])
    defer { driver.descriptor.session_free?(session) }
    // An older host whose struct ends before `message`: the ERROR comes back without it.
    let size = try #require(MemoryLayout<acc_step_output>.offset(of: \.message))
    let result = driver.step(session, outputSize: size)
    #expect(result.code == ACC_STEP_ERROR)
    #expect(result.out.message.bytes == nil && result.out.message.length == 0)
  }
}
