import CAccountsAdapter
import SecretMemory
import Testing

@testable import AdapterKit

/// An adapter of ABI 1.3's pieces. LOGIN with mode=person shows a code, then polls once after
/// 5 s and gets a token and a refresh token; other modes show in the wrong places. REFRESH sends
/// the refresh token it was given in the URL (for the test to read) and rotates it.
private enum RenewingAdapter: Adapter {
  static let name: StaticString = "renewing"
  static let version: StaticString = "1.0.0"
  static let summary: StaticString = "Renews"
  static let settings = [
    SettingDefinition("base_url", "Where"),
    SettingDefinition("mode", "person, twice or password", flags: .optional, default: "password"),
  ]

  static func loginNeeds(settings: Settings) -> LoginNeeds {
    settings.value("mode") == "password" ? .password : .person
  }

  static func makeSession(for configuration: SessionConfiguration, host: any HostServices)
    throws(AdapterError) -> any AdapterSession
  {
    RenewingSession(
      configuration: configuration,
      base: try URLBuilder.checkedBase(configuration.settings.required("base_url"), setting: "base_url"))
  }
}

private final class RenewingSession: AdapterSession {
  let configuration: SessionConfiguration
  let base: String

  init(configuration: SessionConfiguration, base: String) {
    self.configuration = configuration
    self.base = base
  }

  var show: StepResult { .show(message: "enter the code AB\u{1B}[2J-CD", link: base + "/device", expiresIn: 600) }

  func start() throws(AdapterError) -> StepResult {
    switch configuration.operation {
    case .refresh:
      let given = String(decoding: configuration.refreshToken.unprotectedBytes, as: UTF8.self)
      return .send(Request(method: "POST", url: base + "/refresh?rt=" + given))
    case .login where configuration.settings.value("mode") != "password":
      return show
    default:
      // Outside LOGIN a SHOW is the adapter's mistake.
      return show
    }
  }

  func resumeAfterShowing() throws(AdapterError) -> StepResult {
    if configuration.settings.value("mode") == "twice" { return show }
    return .send(Request(method: "POST", url: base + "/poll"), delayMilliseconds: 5000)
  }

  func resume(with response: Response) throws(AdapterError) -> StepResult {
    .ok(
      token: "tok", expiresIn: 60,
      refreshToken: SecretBytes(Array((configuration.operation == .refresh ? "rt-2" : "rt-1").utf8)))
  }
}

private let exported = ExportedAdapter(
  RenewingAdapter.self,
  sessionNew: { config in newSession(RenewingAdapter.self, config) },
  loginNeeds: { settings in loginNeeds(RenewingAdapter.self, settings) })

private let base = [Pair("base_url", "https://x")]

@Suite struct RefreshAndShowTests {
  @Test func loginNeedsAnswersForTheSettingsGiven() throws {
    let driver = try DescriptorDriver(exported)
    #expect(driver.loginNeeds(base + [Pair("mode", "person")]) == ACC_LOGIN_PERSON)
    #expect(driver.loginNeeds(base) == ACC_LOGIN_PASSWORD, "the default mode")
    #expect(driver.loginNeeds([]) == ACC_LOGIN_PASSWORD)
  }

  @Test func aRefreshReadsTheRefreshTokenOnlyWhenTheHostsConfigurationHasIt() throws {
    let driver = try DescriptorDriver(exported)
    let current = driver.newSession(operation: ACC_OP_REFRESH, settings: base, refreshToken: "rt-1")
    defer { driver.descriptor.session_free?(current) }
    #expect(text(driver.step(current).out.request.url) == "https://x/refresh?rt=rt-1")
    // A 1.2 host's configuration ends before refresh_token: what lies beyond is not read.
    let oldSize = try #require(MemoryLayout<acc_session_config>.offset(of: \.refresh_token))
    let old = driver.newSession(
      operation: ACC_OP_REFRESH, settings: base, refreshToken: "rt-1", configSize: oldSize)
    defer { driver.descriptor.session_free?(old) }
    #expect(text(driver.step(old).out.request.url) == "https://x/refresh?rt=")
  }

  @Test func anOKHandsTheRotatedRefreshTokenOver() throws {
    let driver = try DescriptorDriver(exported)
    let session = driver.newSession(operation: ACC_OP_REFRESH, settings: base, refreshToken: "rt-1")
    defer { driver.descriptor.session_free?(session) }
    #expect(driver.step(session).code == ACC_STEP_SEND)
    let ok = driver.step(session, status: 200)
    #expect(ok.code == ACC_STEP_OK)
    #expect(text(ok.out.token) == "tok" && ok.out.expires_in == 60)
    #expect(text(ok.out.refresh_token) == "rt-2")
  }

  /// An older host's output ends before refresh_token and delay_ms: nothing past its end is
  /// written, whatever the adapter returns.
  @Test func nothingIsWrittenPastAnOlderHostsOutput() throws {
    let driver = try DescriptorDriver(exported)
    let fullSize = MemoryLayout<acc_step_output>.size
    let oldSize = try #require(MemoryLayout<acc_step_output>.offset(of: \.refresh_token))
    let raw = UnsafeMutableRawPointer.allocate(byteCount: fullSize, alignment: MemoryLayout<acc_step_output>.alignment)
    defer { raw.deallocate() }
    let out = raw.bindMemory(to: acc_step_output.self, capacity: 1)
    func prepared() -> UnsafeMutablePointer<acc_step_output> {
      raw.initializeMemory(as: UInt8.self, repeating: 0xAB, count: fullSize)
      raw.initializeMemory(as: UInt8.self, repeating: 0, count: oldSize)
      raw.storeBytes(of: UInt32(oldSize), as: UInt32.self)
      return out
    }
    func beyondIsUntouched() -> Bool {
      (oldSize..<fullSize).allSatisfy { raw.load(fromByteOffset: $0, as: UInt8.self) == 0xAB }
    }

    let refresh = driver.newSession(operation: ACC_OP_REFRESH, settings: base, refreshToken: "rt-1")
    defer { driver.descriptor.session_free?(refresh) }
    #expect(driver.step(refresh, status: nil, into: prepared()) == ACC_STEP_SEND)
    #expect(driver.step(refresh, status: 200, into: prepared()) == ACC_STEP_OK)
    #expect(text(out.pointee.token) == "tok", "the fields the host has are written")
    #expect(beyondIsUntouched(), "an OK's refresh token is not written past the host's size")

    let login = driver.newSession(operation: ACC_OP_LOGIN, settings: base + [Pair("mode", "person")])
    defer { driver.descriptor.session_free?(login) }
    #expect(driver.step(login, status: nil, into: prepared()) == ACC_STEP_SHOW)
    #expect(driver.step(login, status: nil, into: prepared()) == ACC_STEP_SEND)
    #expect(text(out.pointee.request.url) == "https://x/poll")
    #expect(beyondIsUntouched(), "a SEND's delay is not written past the host's size")
  }

  @Test func aDeviceLoginShowsThenPollsAfterTheDelay() throws {
    let driver = try DescriptorDriver(exported)
    let session = driver.newSession(operation: ACC_OP_LOGIN, settings: base + [Pair("mode", "person")])
    defer { driver.descriptor.session_free?(session) }
    let shown = driver.step(session)
    #expect(shown.code == ACC_STEP_SHOW)
    #expect(text(shown.out.message) == "enter the code AB [2J-CD", "no control character reaches the host")
    #expect(text(shown.out.link) == "https://x/device")
    #expect(shown.out.expires_in == 600)
    #expect(shown.out.request.url.length == 0, "a SHOW sends nothing")

    let poll = driver.step(session)
    #expect(poll.code == ACC_STEP_SEND)
    #expect(text(poll.out.request.url) == "https://x/poll")
    #expect(poll.out.delay_ms == 5000)

    let ok = driver.step(session, status: 200)
    #expect(ok.code == ACC_STEP_OK)
    #expect(text(ok.out.refresh_token) == "rt-1")
  }

  @Test func aHostOlderThanOnePointThreeGetsAnErrorInsteadOfAShow() throws {
    let driver = try DescriptorDriver(exported, host: 0x0001_0002)
    let session = driver.newSession(operation: ACC_OP_LOGIN, settings: base + [Pair("mode", "person")])
    defer { driver.descriptor.session_free?(session) }
    let result = driver.step(session)
    #expect(result.code == ACC_STEP_ERROR)
    #expect(text(result.out.message) == "this adapter needs accounts with adapter ABI 1.3 for the device flow")
  }

  @Test func aShowComesOnceAndOnlyInLogin() throws {
    let driver = try DescriptorDriver(exported)
    let twice = driver.newSession(operation: ACC_OP_LOGIN, settings: base + [Pair("mode", "twice")])
    defer { driver.descriptor.session_free?(twice) }
    #expect(driver.step(twice).code == ACC_STEP_SHOW)
    let again = driver.step(twice)
    #expect(again.code == ACC_STEP_ERROR)
    #expect(text(again.out.message) == "the adapter asked to show a person a message twice, or outside LOGIN")

    let check = driver.newSession(operation: ACC_OP_CHECK, settings: base)
    defer { driver.descriptor.session_free?(check) }
    let outside = driver.step(check)
    #expect(outside.code == ACC_STEP_ERROR)
    #expect(text(outside.out.message) == "the adapter asked to show a person a message twice, or outside LOGIN")
  }

  @Test func aResponseAfterAShowIsAnError() throws {
    let driver = try DescriptorDriver(exported)
    let session = driver.newSession(operation: ACC_OP_LOGIN, settings: base + [Pair("mode", "person")])
    defer { driver.descriptor.session_free?(session) }
    #expect(driver.step(session).code == ACC_STEP_SHOW)
    let result = driver.step(session, status: 200)
    #expect(result.code == ACC_STEP_ERROR)
    #expect(text(result.out.message) == "the host called step with a response after a SHOW, which sends nothing")
  }
}

/// The writer's bounds on what 1.3's results may carry.
@Suite struct StepResultBoundsTests {
  /// Keeps what the writer hands out alive for the test's expectations.
  let arena = OutputArena()

  func written(_ result: StepResult) -> (code: Int32, out: acc_step_output) {
    var out = acc_step_output()
    out.size = UInt32(MemoryLayout<acc_step_output>.size)
    let code = withUnsafeMutablePointer(to: &out) { pointer in
      ResultWriter(arena: arena, out: StepOutputWriter(pointer)).write(result)
    }
    return (code, out)
  }

  @Test func aDelayIsAtMostAMinute() {
    let request = Request(method: "GET", url: "https://x")
    #expect(written(.send(request, delayMilliseconds: 60_000)).code == ACC_STEP_SEND)
    let long = written(.send(request, delayMilliseconds: 60_001))
    #expect(long.code == ACC_STEP_ERROR)
    #expect(text(long.out.message) == "the adapter asked to wait 60001 ms before a request, more than the 60000 the host allows")
  }

  @Test func aShowHasAMessageALinkAndOneSecondToAnHour() {
    #expect(written(.show(message: "m", link: "https://x", expiresIn: 1)).code == ACC_STEP_SHOW)
    #expect(written(.show(message: "m", link: "https://x", expiresIn: 3600)).code == ACC_STEP_SHOW)
    for bad in [
      StepResult.show(message: "m", link: "https://x", expiresIn: 0),
      .show(message: "m", link: "https://x", expiresIn: 3601),
      .show(message: "", link: "https://x", expiresIn: 60),
      .show(message: "m", link: "", expiresIn: 60),
    ] {
      #expect(written(bad).code == ACC_STEP_ERROR, "\(bad)")
    }
  }

  @Test func secretHeadersFollowThePlainOnes() {
    let request = Request(
      method: "POST", url: "https://x", headers: [Pair("Accept", "application/json")],
      secretHeaders: [SecretPair("Authorization", SecretBytes(Array("Basic eDp5".utf8)))])
    let result = written(.send(request))
    #expect(result.code == ACC_STEP_SEND)
    #expect(result.out.request.headers.pairs == [Pair("Accept", "application/json"), Pair("Authorization", "Basic eDp5")])
  }
}
