@testable import AccountsContract
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCore

/// The entry points when another command logs alice in at exactly the step between two of this
/// command's steps (a hook of the fake keyring runs it there): what this command makes of the
/// other's session once it holds her login lock. The end-to-end tests prove the same across
/// processes and the real lock.
extension SessionFlowTests {

  /// What the backend says of the session the waiting command finds.
  enum FreshVerdict: String, CaseIterable, CustomTestStringConvertible {
    case ok, expired, takenOver
    var testDescription: String { rawValue }
  }

  /// A command that found no session, and by the time it holds alice's login lock finds the
  /// session another command logged in meanwhile, asks the backend about that session (no
  /// login of its own) and carries out its verdict under the lock it already holds: proved;
  /// expired: logged in again once; taken over: ended with exit 5, never logged in again.
  @Test(arguments: FreshVerdict.allCases)
  func aCommandThatWaitedOnTheLoginLockGetsAVerdictOnTheOtherCommandsSession(_ verdict: FreshVerdict) throws {
    let world = try World(token: false)
    let answer: [AdapterOutcome] =
      switch verdict {
      case .ok: []
      case .expired: [.sessionExpired(message: "expired"), FakeAdapterHost.loggedIn("T8")]
      case .takenOver: [.kicked(message: "elsewhere")]
      }
    world.host.script = [FakeAdapterHost.loggedIn("T7")] + answer
    logInMeanwhile(world)
    let result = Result { try world.flow.session(for: alice, prove: true, password: .rememberedOnly) }
    #expect(Array(world.host.calls.prefix(2)) == ["login alice pw", "check alice T7"], "\(world.host.calls)")
    switch verdict {
    case .ok:
      let session = try result.get()
      #expect(text(session.token) == "T7" && session.origin == .proved)
      #expect(world.host.operations == ["login", "check"], "no login of its own")
    case .expired:
      let session = try result.get()
      #expect(text(session.token) == "T8" && session.origin == .loggedInAgain)
      #expect(world.host.operations == ["login", "check", "login"], "logged in again once")
      #expect(world.item(.token) == "T8")
    case .takenOver:
      #expect(throws: SessionFailure.self) { try result.get() }
      if case .failure(let error as SessionFailure) = result { #expect(error.status == .sessionEnded) }
      #expect(world.host.operations == ["login", "check"], "never logs in again after a take-over")
      #expect(world.item(.token) == nil && world.item(.password) == "pw")
      #expect(try world.book[alice]?.token == nil)
    }
  }

  /// A `switch` that found no session, and by the time it holds alice's login lock finds the
  /// session another command logged in meanwhile, takes the slot with that session: the
  /// backend sees one login, the other command's.
  @Test func aSwitchThatWaitedWhileAnotherCommandLoggedInReusesThatSession() throws {
    let world = try World(token: false)
    world.host.script = [FakeAdapterHost.loggedIn("T7")]
    logInMeanwhile(world)
    let (session, reused) = try world.flow.switchTo(alice, password: .rememberedOnly)
    #expect(reused)
    #expect(world.host.calls == ["login alice pw"], "one login: the other command's")
    #expect(session.expiresAt == Self.start.adding(seconds: 3600))
    #expect(world.item(.token) == "T7")
    #expect(try world.book.autoLogin == alice)
  }

  /// Another command logs alice in (password "pw", not taking the slot) while this one reads
  /// her remembered password: after its first look found no session, before it takes her
  /// login lock.
  func logInMeanwhile(_ world: World) {
    world.store.duringLookup = { key in
      guard key == SecretKey(self.alice, .password) else { return }
      world.store.duringLookup = nil
      do {
        _ = try world.flow.logIn(self.alice, password: .given(secret("pw")), remember: false, takeSlot: false)
      } catch {
        Issue.record("the other command's login failed: \(error)")
      }
    }
  }
}
