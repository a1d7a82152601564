import AccountsContract
import Testing

@testable import AccountsCore

/// Which account git's request is for: the rules the helper answers by, without git.
struct GitAccountChoiceTests {
  static let corp = BackendConfig(name: "corp", adapter: "plain", settings: ["git_host": "git.corp.example"])
  static let mirror = BackendConfig(name: "mirror", adapter: "plain", settings: ["git_host": "git.corp.example"])
  static let local = BackendConfig(
    name: "local", adapter: "plain", settings: ["git_host": "127.0.0.1:8080", "allow_insecure_transport": "true"])
  static let alice = AccountID(user: "alice", backend: "corp")
  static let bob = AccountID(user: "bob", backend: "corp")

  func request(_ lines: String) throws -> GitCredentialRequest { try GitCredentialRequest.parse(Array(lines.utf8)) }

  func book(_ ids: [AccountID]) throws -> AccountBook {
    try AccountBook(accounts: ids.map { Account(id: $0, addedAt: Timestamp(secondsSince1970: 1_800_000_000)) }, autoLogin: nil, previousAutoLogin: nil)
  }

  func choice(_ lines: String, _ backends: [BackendConfig], _ saved: [AccountID], here: AccountID?) throws -> GitAccountChoice {
    var read = false
    let result = try request(lines).account(backends: backends, book: { read = true; return try book(saved) }) { _ in here }
    if case .none(nil) = result, !backends.contains(where: { $0.settings["git_host"] == "git.corp.example" }) {
      #expect(!read, "no backend names the host: the index is not read")
    }
    return result
  }

  @Test func theAccountHereAnswersWhenItIsOnABackendNamingTheHost() throws {
    let https = "protocol=https\nhost=git.corp.example\n"
    #expect(try choice(https, [Self.corp], [Self.alice], here: Self.alice) == .account(Self.alice))
    #expect(try choice(https, [Self.local], [Self.alice], here: Self.alice) == .none(why: nil))
    #expect(try choice(https, [Self.corp], [Self.alice], here: nil) == .none(why: nil))
  }

  @Test func theURLsUserChoosesAndAStaleSelectionDoesNotStandInItsWay() throws {
    let bobs = "protocol=https\nhost=git.corp.example\nusername=bob\n"
    #expect(try choice(bobs, [Self.corp], [Self.alice, Self.bob], here: Self.alice) == .account(Self.bob))
    let stale = try request(bobs).account(backends: [Self.corp], book: { try book([Self.bob]) }) { _ in
      throw AccountLookupError.unknown("zed", backend: nil, suggestions: [])
    }
    #expect(stale == .account(Self.bob))
    #expect(try choice(bobs, [Self.corp], [Self.alice], here: Self.alice) == .none(why: nil), "bob is saved nowhere")
    let twice = try choice(bobs, [Self.corp, Self.mirror], [Self.bob, AccountID(user: "bob", backend: "mirror")], here: nil)
    guard case .none(let why?) = twice else { Issue.record("\(twice)"); return }
    #expect(why.contains("bob is saved on several backends naming git.corp.example (bob@corp, bob@mirror)"))
  }

  @Test func overHTTPOnlyThisMachineGetsAToken() throws {
    #expect(
      try choice("protocol=http\nhost=127.0.0.1:8080\n", [Self.local], [Self.alice], here: AccountID(user: "alice", backend: "local"))
        == .account(AccountID(user: "alice", backend: "local")))
    let remote = try choice("protocol=http\nhost=git.corp.example\n", [Self.corp], [Self.alice], here: Self.alice)
    guard case .none(let why?) = remote else { Issue.record("\(remote)"); return }
    #expect(why == "no token for http://git.corp.example (backend corp): " + GitTransport.rule)
  }
}
