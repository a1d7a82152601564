@testable import AccountsContract
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCore

/// `--refresh`'s side of the flow: a renewal takes a session another command made meanwhile
/// instead of logging in over it, and which failures end the renewals of an account.
@Suite struct SessionFlowRefreshTests {
  typealias World = SessionFlowTests.World
  let alice = AccountID(user: "alice", backend: "corp")
  var now: Double { Double(SessionFlowTests.start.secondsSince1970) }

  @Test func aRenewalTakesTheSessionAnotherCommandMadeInsteadOfLoggingIn() throws {
    let world = try World()
    // The refresher started with T1 (an index without generations), then `accounts login`
    // made a session of its own.
    let other = try world.flow.logIn(alice, password: .rememberedOnly, remember: false, takeSlot: false)
    let generation = try #require(other.generation)
    #expect(world.host.operations == ["login"])

    let taken = try world.flow.renew(alice, replacing: nil, now: now)
    #expect(text(taken.token) == text(other.token), "the other command's session, not a new one")
    #expect(taken.generation == generation)
    #expect(world.host.operations == ["login"], "no second login: it would have ended the other session")

    // The session the refresher knows is due: that one is renewed.
    let renewed = try world.flow.renew(alice, replacing: generation, now: now)
    #expect(renewed.generation != generation)
    #expect(world.host.operations == ["login", "login"])
  }

  @Test func aSessionAnotherCommandMadeIsRenewedWhenItsOwnRenewalTimeHasCome() throws {
    let world = try World()
    let other = try world.flow.logIn(alice, password: .rememberedOnly, remember: false, takeSlot: false)
    let due = now + 3600 * RefreshSchedule.lifetimeFraction
    let renewed = try world.flow.renew(alice, replacing: nil, now: due)
    #expect(renewed.generation != other.generation, "a session at its renewal time is not taken")
    #expect(world.host.operations == ["login", "login"])
  }

  @Test func signedInElsewhereEndsTheRenewalsUnlessTheCommandHoldsTheLease() throws {
    let world = try World()
    let failure = SessionFailure.signedInElsewhere(subject: "alice@corp", message: "kicked")
    let said = "signed in elsewhere (kicked); not logging in again automatically"
    let leased = RenewalFailure(failure, alice, world.flow, leased: true)
    #expect(leased.lastWords == nil, "the holder's refresher tries again: nobody else may log the account in")
    #expect(leased.reason == said)
    let unleased = RenewalFailure(failure, alice, world.flow, leased: false)
    #expect(unleased.lastWords == ": \(said); its token file is no longer renewed")
  }

  @Test func aLostLeaseEndsTheRenewalsAtOnce() throws {
    let world = try World()
    let lost = RenewalFailure(SessionFailure.leaseLost(alice, now: nil), alice, world.flow, leased: true)
    #expect(lost.lastWords?.hasSuffix("its token file is no longer renewed") == true)
  }
}
