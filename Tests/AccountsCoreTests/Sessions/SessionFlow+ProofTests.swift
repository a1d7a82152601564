@testable import AccountsContract
import AccountsSystem
import TestDoubles
import Testing

@testable import AccountsCore

/// A session proved by its expiry alone when the backend's adapter said (to an earlier load of
/// the same file) that its CHECK asks nothing for the backend's settings: `lease` and `status`
/// then neither load the adapter nor run the CHECK. Anything less certain runs the CHECK.
extension SessionFlowTests {
  enum CheckKnowledge: String, CaseIterable, CustomTestStringConvertible {
    /// Nothing kept: the adapter must be loaded to know.
    case unknown
    /// An adapter from before ABI 1.2, or one that does not say.
    case undeclared
    /// Declared: CHECK asks only with check_path, which the backend does not have.
    case declaredWithoutItsSetting
    /// Declared, and the backend has check_path.
    case declaredWithItsSetting
    var testDescription: String { rawValue }
    var asksNothing: Bool { self == .declaredWithoutItsSetting }
  }

  @Test(arguments: CheckKnowledge.allCases)
  func aSessionIsProvedWithoutItsAdapterOnlyWhenItsCheckIsKnownToAskNothing(_ knowledge: CheckKnowledge) throws {
    let world = try World()
    switch knowledge {
    case .unknown: world.host.knowsSessionCheck = false
    case .undeclared: world.host.knowsSessionCheck = true
    case .declaredWithoutItsSetting, .declaredWithItsSetting:
      world.host.knowsSessionCheck = true
      world.host.sessionCheck = .onlyWith(["check_path"])
    }
    if knowledge == .declaredWithItsSetting {
      world.host.declared = [AdapterSetting(name: "check_path", label: "check", isOptional: true)]
      try world.ledger.config.update { $0.update("corp") { $0.settings["check_path"] = "check" } }
    }
    let leased = try world.flow.leasedSession(for: alice)
    let statused = try world.flow.session(for: alice, prove: true, password: .rememberedOnly)
    for session in [leased, statused] {
      #expect(text(session.token) == "T1" && session.origin == .proved)
    }
    if knowledge.asksNothing {
      #expect(world.host.calls.isEmpty && world.host.loads == 0, "no CHECK, no load: \(world.host.calls)")
    } else {
      #expect(world.host.operations == ["check", "check"], "\(world.host.calls)")
      #expect(world.host.loads == 2, "each command loads it")
    }
  }

  /// What the adapter said is asked once per backend and flow, not once per account proved
  /// (`status` proves every account of a backend).
  @Test func theCheckIsLearntOncePerFlow() throws {
    let world = try World()
    world.host.knowsSessionCheck = true
    world.host.sessionCheck = .onlyWith([])
    let flow = world.flow
    for _ in 0..<3 { _ = try flow.session(for: alice, prove: true, password: .rememberedOnly) }
    #expect(world.host.sessionCheckAsks == 1)
    #expect(world.host.calls.isEmpty && world.host.loads == 0)
  }

  /// An expired session is not proved by anything: it is logged in again, whatever the check.
  @Test func anExpiredSessionIsLoggedInAgainEvenWhenItsCheckAsksNothing() throws {
    let world = try World(tokenExpired: true)
    world.host.knowsSessionCheck = true
    world.host.sessionCheck = .onlyWith([])
    let session = try world.flow.leasedSession(for: alice)
    #expect(text(session.token) != "T1")
    #expect(world.host.operations == ["login"], "\(world.host.calls)")
  }
}
