@testable import AccountsContract
@testable import AccountsCore
@testable import AccountsServices
import AccountsSystem
import Foundation
import TestDoubles
import Testing

/// The token refresher's order, the one line its command writes on its standard input.
@Suite struct TokenRefresherTests {
  let login = Timestamp(secondsSince1970: 1_800_000_000)

  @Test func theOrderCarriesNoSecretAndReadsBackAsWritten() throws {
    let order = TokenRefresher.Order(
      entries: [
        TokenRefresher.Entry(
          account: AccountID(user: "ali\"ce", backend: "corp"), file: TokenFile(path: "/run/user/1/accounts/tokens/a.token"),
          generation: "0123456789abcdef", loggedInAt: login, expiresAt: login.adding(seconds: 3), lease: "0f1e2d3c"),
        TokenRefresher.Entry(
          account: AccountID(user: "bob", backend: "corp"), file: TokenFile(path: "/run/b.token"), generation: nil,
          loggedInAt: nil, expiresAt: nil, lease: nil),
      ], checkMilliseconds: 1000, timeoutMilliseconds: 20_000)
    let line = order.encoded()
    #expect(line.last == 10 && line.filter { $0 == 10 }.count == 1, "one line")
    #expect(TokenRefresher.Order.decode(Array(line.dropLast())) == order)
    #expect(order.heldLeases == [AccountID(user: "ali\"ce", backend: "corp"): "0f1e2d3c"], "only the leased account")
    #expect(TokenRefresher.Order.decode(Array("{}".utf8)) == nil)
    let relative = String(decoding: line, as: UTF8.self).replacingOccurrences(of: "/run/b.token", with: "b.token")
    #expect(TokenRefresher.Order.decode(Array(relative.utf8.dropLast())) == nil, "a file is an absolute path")
  }
}

/// One account as the token refresher follows it (`TokenRefresher.Kept`), over the test doubles:
/// when its token file is written, and which failures end its renewals.
@Suite struct TokenRefresherKeptTests {
  static let start = Timestamp(secondsSince1970: 1_800_000_000)
  let alice = AccountID(user: "alice", backend: "corp")

  /// alice@corp with token T1 (valid for an hour, recorded by an index without generations),
  /// its password remembered unless not, and a token file that holds `planted`.
  final class World {
    let tree: TemporaryTree
    let store = FakeSecretStore()
    let host = FakeAdapterHost()
    let leases = FakeLeases()
    let ledger: Ledger
    let file: TokenFile
    var said: [String] = []

    init(remembered: Bool) throws {
      tree = try TemporaryTree()
      let config = ConfigStore(paths: tree.paths)
      try config.update { try $0.add(BackendConfig(name: "corp", adapter: "plain")) }
      ledger = Ledger(index: IndexStore(paths: tree.paths), config: config, secrets: { [store] in store })
      let alice = AccountID(user: "alice", backend: "corp")
      try ledger.add(Account(id: alice, addedAt: start), password: remembered ? secret("pw") : nil)
      try ledger.record(
        .loggedIn(remember: false, takeSlot: false), for: alice, token: secret("T1"),
        login: LoginRecord(expiresAt: start.adding(seconds: 3600)), at: start)
      file = TokenFile(path: tree.root + "/alice.token")
      try file.write(secret("planted"))
    }

    func flow(holding lease: String?) -> SessionFlow {
      var flow = SessionFlow(
        ledger: ledger, host: { [host] in host }, searchPath: AdapterSearchPath(directories: []), timeout: 5,
        locks: FakeSessionLocks(registry: .init()), now: { TokenRefresherKeptTests.start }, notice: { _ in })
      flow.leases = leases
      if let lease {
        flow.heldLeases[AccountID(user: "alice", backend: "corp")] = lease
        leases.hold(AccountID(user: "alice", backend: "corp"), lease: lease)
      }
      return flow
    }

    func kept(lease: String?) -> TokenRefresher.Kept {
      TokenRefresher.Kept(
        TokenRefresher.Entry(
          account: AccountID(user: "alice", backend: "corp"), file: file, generation: nil, loggedInAt: nil,
          expiresAt: nil, lease: lease),
        checkSeconds: 60)
    }

    func attempt(_ kept: inout TokenRefresher.Kept, _ flow: SessionFlow) {
      kept.attempt(flow, now: Double(TokenRefresherKeptTests.start.secondsSince1970), say: { self.said.append($0) })
    }

    var fileText: String? { FileManager.default.contents(atPath: file.path).map { String(decoding: $0, as: UTF8.self) } }
  }

  @Test func aSessionWithoutAGenerationHasItsFileWrittenAtEveryCheck() throws {
    let world = try World(remembered: true)
    let flow = world.flow(holding: nil)
    var kept = world.kept(lease: nil)
    world.attempt(&kept, flow)
    #expect(world.host.operations == ["check"])
    #expect(world.fileText == "T1", "without a generation the refresher cannot tell the file is current")
    try world.file.write(secret("planted"))
    world.attempt(&kept, flow)
    #expect(world.host.operations == ["check", "check"])
    #expect(world.fileText == "T1", "written again at the next check")
    #expect(!kept.stopped && world.said.isEmpty, "\(world.said)")
  }

  @Test func signedInElsewhereWhileTheLeaseIsHeldIsTriedAgain() throws {
    let world = try World(remembered: false)
    world.host.script = [.kicked(message: "kicked")]
    var kept = world.kept(lease: "0123456789abcdef")
    world.attempt(&kept, world.flow(holding: "0123456789abcdef"))
    #expect(!kept.stopped, "the holder keeps its account: nobody else may log it in")
    #expect(kept.due != nil && kept.failures == 1)
    #expect(world.said.count == 1 && world.said[0].contains("signed in elsewhere"), "\(world.said)")
    #expect(world.said.first?.contains("trying again in 1 s") == true, "\(world.said)")
  }

  @Test func signedInElsewhereOutsideALeaseEndsTheRenewals() throws {
    let world = try World(remembered: false)
    world.host.script = [.kicked(message: "kicked")]
    var kept = world.kept(lease: nil)
    world.attempt(&kept, world.flow(holding: nil))
    #expect(kept.stopped && kept.due == nil, "SPEC §4: a session taken over is not taken back")
    #expect(world.said.first?.hasSuffix("its token file is no longer renewed") == true, "\(world.said)")
  }
}
