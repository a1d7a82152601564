import AccountsContract
import AccountsSystem
import Foundation
import SecretMemory
import Synchronization
import Testing
import TestSupport

@testable import AdapterHost

/// What ABI 1.3 added, through a C adapter built from the header alone: REFRESH with the
/// refresh token in and out, SHOW with its pauses bounded by the person's time, login_needs,
/// and adapters of 1.2 and before loading and working as they did.
@Suite(.blocking) struct AdapterABI13Tests {
  func secret(_ text: String) -> SecretBytes {
    var bytes = Array(text.utf8)
    return SecretBytes(consuming: &bytes)
  }

  let scratch: ScratchDirectory

  init() throws { scratch = try ScratchDirectory() }

  func adapter() throws -> LoadedAdapter {
    let path = try CAdapterCompiler.build("person.c", name: "person", into: scratch.path)
    return try AdapterLoader.load(path, name: "person").get()
  }

  func login(
    _ settings: [String: String], person: PersonChannel?, limits: AdapterLimits = AdapterLimits(),
    transport: CannedTransport = CannedTransport()
  ) throws -> AdapterOutcome {
    let request = AdapterRequest(
      adapter: "person", backend: "corp", settings: settings, user: "alice", operation: .login(password: .empty),
      timeout: 10, person: person)
    return AdapterSessionRunner(adapter: try adapter(), transport: transport, limits: limits).run(request)
  }

  @Test func refreshHandsOverTheRefreshTokenAndReadsTheRotatedOne() throws {
    let request = AdapterRequest(
      adapter: "person", backend: "corp", settings: [:], user: "alice",
      operation: .refresh(refreshToken: secret("R1")), timeout: 10)
    let outcome = AdapterSessionRunner(adapter: try adapter(), transport: CannedTransport()).run(request)
    guard case .ok(let success) = outcome else { Issue.record("\(outcome)"); return }
    #expect(success.token == secret("T-R1"))
    #expect(success.refreshToken == secret("R1x"))
    #expect(success.expiresIn == 60)
  }

  @Test func loginNeedsIsTheAdaptersAnswerForTheSettings() throws {
    let adapter = try adapter()
    #expect(adapter.loginNeeds(settings: ["grant": "device"]) == .person)
    #expect(adapter.loginNeeds(settings: [:]) == .password)
    // Adapters without the function, or older than 1.3, need a password.
    let hostile = try CAdapterCompiler.hostile("MODE_ECHO_SETTINGS", name: "echo", into: scratch.path)
    #expect(try AdapterLoader.load(hostile, name: "echo").get().loginNeeds(settings: [:]) == .password)
  }

  @Test func aShowReachesThePersonSanitisedAndPollingOutlivesTheStepLimit() throws {
    let shown = ThreadSafeList<PersonMessage>()
    let transport = CannedTransport()
    var limits = AdapterLimits()
    limits.steps = 1  // two polls, each after a pause of a second: bounded by the person's time
    let started = monotonicSeconds()
    let outcome = try login(
      ["grant": "device", "polls": "2"], person: PersonChannel { shown.append($0) }, limits: limits, transport: transport)
    guard case .ok(let success) = outcome else { Issue.record("\(outcome)"); return }
    #expect(success.token == secret("DEV"))
    #expect(success.refreshToken == secret("RDEV"))
    #expect(transport.requests.count == 2)
    #expect(monotonicSeconds() - started >= 1.9, "each poll waited its delay")
    #expect(shown.all.count == 1)
    let message = try #require(shown.all.first)
    #expect(!message.text.unicodeScalars.contains { $0.value == 0x1B }, "no escape reaches the terminal: \(message.text)")
    #expect(message.text.hasPrefix("enter the code ") && message.text.hasSuffix("ABCD-EFGH"))
    #expect(message.link == "https://id.example/device" && message.expiresIn == 3 && message.account == "alice@corp")
  }

  @Test func pollingEndsWhenThePersonsTimeIsUp() throws {
    let started = monotonicSeconds()
    let outcome = try login(["grant": "device", "polls": "0"], person: PersonChannel { _ in })
    #expect(outcome == .sessionExpired(message: "nobody approved the login in the time the provider gave"))
    #expect(monotonicSeconds() - started < 6)
  }

  @Test func aShowWithNobodyToSeeItTwiceOrWithAHugeDelayIsTheAdaptersFault() throws {
    #expect(
      try login(["grant": "device"], person: nil)
        == .adapterFailed(message: "adapter person asked to show a person a message, and nobody can see one here"))
    #expect(
      try login(["grant": "device", "show": "twice"], person: PersonChannel { _ in })
        == .adapterFailed(message: "adapter person asked to show a person a message twice"))
    #expect(
      try login(["grant": "device", "delay": "huge"], person: PersonChannel { _ in })
        == .adapterFailed(message: "adapter person asked to wait 60001 ms before a request; at most 60000"))
  }

  /// A 1.2 descriptor ends before login_needs: it loads, and its LOGIN needs a password.
  @Test func aDescriptorOf12LoadsAndNeedsAPassword() throws {
    let path = try CAdapterCompiler.build("example.c", name: "example", header: .version1_2, into: scratch.path)
    let adapter = try AdapterLoader.load(path, name: "example").get()
    #expect(adapter.description.abiText == "1.2")
    #expect(adapter.loginNeeds(settings: [:]) == .password)
  }
}
