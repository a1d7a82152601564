import AccountsContract
import AccountsSystem
import Foundation
import SecretMemory
import Synchronization
import Testing
import TestSupport

@testable import AdapterHost

/// Adapters that loop, spin, or return garbage end the operation with a message; the host
/// neither hangs nor crashes.
@Suite(.blocking) struct AdapterSessionRunnerTests {
  let scratch: ScratchDirectory

  init() throws { scratch = try ScratchDirectory() }

  func run(_ mode: String, timeout: Double = 10, transport: CannedTransport = CannedTransport()) throws -> AdapterOutcome {
    let name = mode.lowercased().replacingOccurrences(of: "_", with: "-")
    let path = try CAdapterCompiler.hostile(mode, name: name, into: scratch.path)
    let adapter = try AdapterLoader.load(path, name: name).get()
    let request = AdapterRequest(
      adapter: name, backend: "corp", settings: [:], user: "alice",
      operation: .login(password: SecretBytes(copying: UnsafeRawBufferPointer(start: nil, count: 0))), timeout: timeout)
    return AdapterSessionRunner(adapter: adapter, transport: transport).run(request)
  }

  @Test func endlessSendsStopAtTheStepLimit() throws {
    let transport = CannedTransport()
    let outcome = try run("MODE_LOOP", transport: transport)
    #expect(outcome == .adapterFailed(message: "adapter mode-loop asked for more than 16 requests in one operation; it is looping"))
    #expect(transport.requests.count == 16)
  }

  @Test func aStepThatNeverReturnsEndsAtTheDeadline() throws {
    let started = Date()
    let outcome = try run("MODE_SPIN", timeout: 1)
    #expect(outcome == .adapterFailed(message: "adapter mode-spin did not answer within 1 s; it may be stuck"))
    #expect(Date().timeIntervalSince(started) < 5)
  }

  @Test func unknownResultCodesAreErrors() throws {
    #expect(try run("MODE_UNKNOWN_RESULT") == .adapterFailed(message: "adapter mode-unknown-result returned the unknown result code 42"))
  }

  @Test func hugeAndNullStringsAreRefusedUnread() throws {
    #expect(try run("MODE_HUGE_MESSAGE") == .adapterFailed(message: "adapter mode-huge-message returned a message that is 2097152 bytes long (at most 1048576)"))
    #expect(try run("MODE_NULL_STRING") == .adapterFailed(message: "adapter mode-null-string returned a message that is a NULL pointer with a length"))
  }

  @Test func headerInjectionIsRefusedBeforeAnythingIsSent() throws {
    let transport = CannedTransport()
    #expect(try run("MODE_BAD_HEADER", transport: transport) == .adapterFailed(message: "adapter mode-bad-header sent header X-Test with a line break in its value"))
    #expect(transport.requests.isEmpty)
  }

  @Test func malformedTokensAndFailedSessionsAreErrors() throws {
    #expect(try run("MODE_BAD_TOKEN") == .adapterFailed(message: "adapter mode-bad-token returned a token with spaces, control characters or non-ASCII bytes"))
    #expect(try run("MODE_NO_SESSION") == .adapterFailed(message: "adapter mode-no-session could not start a session (session_new returned NULL)"))
  }

  /// A secret setting reaches the adapter from the keyring's values only: one of the same name
  /// in the backend's plain settings (config.json, where it must never be) is not passed, not
  /// even when the keyring has none.
  @Test func secretSettingsComeOnlyFromTheKeyring() throws {
    let path = try CAdapterCompiler.hostile("MODE_ECHO_SETTINGS", name: "echo", into: scratch.path)
    let adapter = try AdapterLoader.load(path, name: "echo").get()
    try #require(adapter.description.setting(named: "api_key")?.isSecret == true)
    func echoed(_ secretSettings: [String: SecretBytes]) -> String? {
      var password: [UInt8] = []
      let request = AdapterRequest(
        adapter: "echo", backend: "corp", settings: ["base_url": "http://127.0.0.1:9", "api_key": "from-config"],
        user: "alice", operation: .login(password: SecretBytes(consuming: &password)), timeout: 10)
      let outcome = AdapterSessionRunner(adapter: adapter, transport: CannedTransport())
        .run(request, secretSettings: secretSettings)
      guard case .ok(let success) = outcome else { return "\(outcome)" }
      return success.sessionValues["api_key"]
    }
    #expect(echoed([:]) == "absent")
    var keyring = Array("from-keyring".utf8)
    #expect(echoed(["api_key": SecretBytes(consuming: &keyring)]) == "from-keyring")
  }
}
