@testable import AccountsContract
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCore

/// Another command acting on alice at exactly the step between two of this command's steps
/// (a hook of the fake keyring runs it there): what this command makes of the other's session.
/// The end-to-end tests (LoginLockWaitTests) prove the same across processes and the real lock.
extension SessionFlowTests {
  /// Where `status`'s other party renews alice's session: just before `status` reads every
  /// token, or once it has read them (before it reads alice's session from the index again).
  enum RenewalStep: String, CaseIterable, CustomTestStringConvertible {
    case beforeTheTokensAreRead, afterTheTokensAreRead
    var testDescription: String { rawValue }
  }

  /// `status` reads the index, every token at once, then each account's session: a session
  /// renewed in between is never paired with the other session's token. Whichever session the
  /// entry names (told by its expiry), the token is that session's, and the backend was asked
  /// about that token.
  @Test(arguments: RenewalStep.allCases)
  func statusNeverPairsASessionWithAnotherSessionsToken(_ step: RenewalStep) throws {
    let world = try World()  // T1, until start + 1 h
    let sessions: [(expiresAt: Timestamp, token: String)] = [
      (Self.start.adding(seconds: 3600), "T1"), (Self.start.adding(seconds: 7200), "T9"),
    ]
    world.host.script = [FakeAdapterHost.loggedIn("T9", expiresIn: 7200)]
    let renew = {
      world.store.beforeLookupAll = nil
      world.store.afterLookupAll = nil
      do {
        _ = try world.flow.logIn(self.alice, password: .given(secret("pw")), remember: false, takeSlot: false)
      } catch {
        Issue.record("the renewal failed: \(error)")
      }
    }
    switch step {
    case .beforeTheTokensAreRead: world.store.beforeLookupAll = renew
    case .afterTheTokensAreRead: world.store.afterLookupAll = renew
    }
    let entry = try world.flow.status(of: [alice], jobs: 1)[0]
    #expect(world.host.calls.first == "login alice pw", "renewed while status ran")
    guard case .valid(let session) = entry.outcome else {
      Issue.record("\(entry.outcome)")
      return
    }
    let named = try #require(sessions.first { $0.expiresAt == session.expiresAt }, "a session status never saw")
    #expect(text(session.token) == named.token, "the session until \(named.expiresAt) has token \(named.token)")
    #expect(world.host.calls.last == "check alice \(named.token)", "\(world.host.calls)")
  }

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
