@testable import AccountsContract
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCore

/// Logins of a backend whose adapter needs a one-time code: where the code comes from, who may
/// be asked, and what a rejection with a code does (the end-to-end tests run the same stories
/// with the real adapters, the keyring and the test backend).
@Suite struct OneTimeCodeTests {
  static let start = Timestamp(secondsSince1970: 1_800_000_000)
  let alice = AccountID(user: "alice", backend: "corp")

  /// alice@corp with password "pw" remembered, on a backend whose adapter declares otp_field
  /// (ONE_TIME_CODE), set unless `otpField` is nil; the token expired unless `token` is false.
  final class World: @unchecked Sendable {
    let tree: TemporaryTree
    let store = FakeSecretStore()
    let host = FakeAdapterHost()
    let ledger: Ledger
    var stored: String?
    var answer: String?
    private(set) var asked = 0

    init(otpField: String? = "otp", token: Bool = true) throws {
      tree = try TemporaryTree()
      host.declared = [AdapterSetting(name: "otp_field", label: "code field", isOptional: true, isOneTimeCode: true)]
      let config = ConfigStore(paths: tree.paths)
      let settings = otpField.map { ["otp_field": $0] } ?? [:]
      try config.update { try $0.add(BackendConfig(name: "corp", adapter: "plain", settings: settings)) }
      ledger = Ledger(index: IndexStore(paths: tree.paths), config: config, secrets: { [store] in store })
      let alice = AccountID(user: "alice", backend: "corp")
      try ledger.add(Account(id: alice, addedAt: start), password: secret("pw"))
      if token {
        try ledger.record(
          .loggedIn(remember: false, takeSlot: true), for: alice, token: secret("T1"),
          login: LoginRecord(expiresAt: start.adding(seconds: -60), session: ["userId": "1001"]),
          at: start.adding(seconds: -100))
      }
    }

    let locks = FakeSessionLocks.Registry()

    var flow: SessionFlow {
      SessionFlow(
        ledger: ledger, host: { [host] in host }, searchPath: AdapterSearchPath(directories: []), timeout: 5,
        locks: FakeSessionLocks(registry: locks), now: { OneTimeCodeTests.start }, notice: { _ in },
        oneTimeCodes: OneTimeCodeSource(
          stored: { [self] _, _, _ in stored.map(secret) },
          ask: { [self] _ in
            asked += 1
            return answer.map(secret)
          }))
    }

    func item(_ kind: SecretKind) -> String? { store.text(SecretKey(backend: "corp", account: "alice", kind: kind)) }
  }

  let mayAsk = PasswordSource.rememberedOrAsk { _ in nil }

  @Test func theStoredCodeComesFirstAndNobodyIsAsked() throws {
    let world = try World()
    world.stored = "287082"
    world.answer = "111111"
    _ = try world.flow.logIn(alice, password: mayAsk, remember: false, takeSlot: false)
    #expect(world.host.calls == ["login alice pw code 287082"])
    #expect(world.asked == 0)
  }

  @Test func withoutAStoredCodeAPersonIsAsked() throws {
    let world = try World()
    world.answer = "654321"
    _ = try world.flow.logIn(alice, password: mayAsk, remember: false, takeSlot: false)
    #expect(world.host.calls == ["login alice pw code 654321"])
    #expect(world.asked == 1)
  }

  @Test func withNeitherTheLoginFailsWithExit3BeforeTheBackend() throws {
    let world = try World()
    let failure = #expect(throws: SessionFailure.self) {
      try world.flow.logIn(alice, password: mayAsk, remember: false, takeSlot: false)
    }
    #expect(failure == .oneTimeCodeRequired(alice, name: "alice"))
    #expect(failure?.status == .loginRequired)
    #expect(failure?.message == "alice@corp needs a one-time code: `accounts otp set alice`")
    #expect(world.host.calls.isEmpty)
  }

  @Test func commandsThatNeverPromptNeverAskForACode() throws {
    // status, and a session whose expiry passed, logged in again with the remembered password.
    let world = try World()
    world.answer = "654321"
    let entry = try world.flow.status(of: [alice], jobs: 1)[0]
    guard case .failed(let failure) = entry.outcome else {
      Issue.record("\(entry.outcome)")
      return
    }
    #expect(failure == .oneTimeCodeRequired(alice, name: "alice"))
    #expect(world.asked == 0)
    #expect(throws: SessionFailure.oneTimeCodeRequired(alice, name: "alice")) {
      try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    }
    #expect(world.asked == 0)
    let stale = world.flow.logInStale([alice], withinSeconds: 600, jobs: 1)
    guard case .failed(let status, let message) = stale.first?.outcome else {
      Issue.record("\(stale)")
      return
    }
    #expect(status == .loginRequired && message.contains("needs a one-time code"))
    #expect(world.asked == 0)
    #expect(world.host.calls.isEmpty)
    #expect(world.item(.password) == "pw")
  }

  @Test func aRejectedLoginWithACodeForgetsNothingAndIsNotRetried() throws {
    let world = try World()
    world.stored = "287082"
    world.host.script = [.wrongPassword(message: "wrong username or password")]
    let failure = #expect(throws: SessionFailure.self) {
      try world.flow.session(for: alice, prove: false, password: .rememberedOnly)
    }
    #expect(failure?.status == .credentialsRejected)
    #expect(world.host.operations == ["login"], "one login, no retry")
    #expect(world.item(.password) == "pw", "the code may have been the wrong part")
    #expect(try world.ledger.index.load()[alice]?.remembered == true)
  }

  /// The backend cannot tell which part was wrong: the rejection of a login that carried a
  /// code names the code and where it came from besides the password, never "the user name".
  @Test func aRejectionWithACodeSaysToCheckTheCodeToo() throws {
    let world = try World()
    world.stored = "287082"
    world.host.script = [.wrongPassword(message: "wrong username or password")]
    let fromSeed = #expect(throws: SessionFailure.self) {
      try world.flow.logIn(alice, password: mayAsk, remember: false, takeSlot: false)
    }
    #expect(fromSeed?.status == .credentialsRejected)
    #expect(fromSeed?.message == "alice@corp: wrong username or password")
    #expect(
      fromSeed?.fix
        == "check the password, the TOTP seed (`accounts otp alice` against your authenticator) and this machine's clock")

    world.stored = nil
    world.answer = "654321"
    world.host.script = [.wrongPassword(message: "")]
    let typed = #expect(throws: SessionFailure.self) {
      try world.flow.logIn(alice, password: mayAsk, remember: false, takeSlot: false)
    }
    #expect(typed?.status == .credentialsRejected)
    #expect(typed?.message == "alice@corp: the backend rejected the password or the one-time code")
    #expect(typed?.fix == "check the password, and type the current code")
  }

  @Test func aBackendThatDoesNotSetTheCodeSettingNeverAsks() throws {
    let world = try World(otpField: nil)
    world.stored = "287082"
    world.answer = "654321"
    _ = try world.flow.logIn(alice, password: mayAsk, remember: false, takeSlot: false)
    #expect(world.host.calls == ["login alice pw"])
    #expect(world.asked == 0)
  }

  @Test(arguments: ["123456", "1234567", "12345678"])
  func codesAreSixToEightDigits(_ code: String) throws {
    #expect(text(try OneTimeCode.checked(secret(code))) == code)
  }

  @Test(arguments: ["12345", "123456789", "12 456", "12a456", "", "１２３４５６"])
  func anythingElseIsAUsageError(_ code: String) {
    let error = #expect(throws: CommandError.self) { try OneTimeCode.checked(secret(code)) }
    #expect(error?.status == .usage)
  }
}
