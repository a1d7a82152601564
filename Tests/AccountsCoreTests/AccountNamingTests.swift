import AccountsContract
import AccountsCore
import AccountsSystem
import Testing

/// How a new name becomes an account (`add`, a first `login`, each row of `import`): USER@BACKEND,
/// or the whole name on the only backend.
@Suite struct AccountNamingTests {
  var configuration: Configuration {
    get throws {
      try Configuration(backends: [BackendConfig(name: "corp", adapter: "plain"), BackendConfig(name: "home", adapter: "plain")])
    }
  }

  @Test func aNewNameIsUserAtBackendOrTheWholeNameOnTheOnlyBackend() throws {
    let one = try Configuration(backends: [BackendConfig(name: "corp", adapter: "plain")])
    #expect(try one.newAccountID("alice", backend: nil) == AccountID(user: "alice", backend: "corp"))
    #expect(try one.newAccountID("alice@corp", backend: nil) == AccountID(user: "alice", backend: "corp"))
    #expect(
      try one.newAccountID("alice@example.com", backend: nil) == AccountID(user: "alice@example.com", backend: "corp"),
      "an e-mail address is a user")
    #expect(throws: ConfigurationError.self, "a suffix without a dot is a mistyped backend") {
      try one.newAccountID("alice@crop", backend: nil)
    }
    #expect(throws: CommandError.usage("'alice@corp' names backend 'corp' but --backend says 'home'", fix: "give the backend once")) {
      try configuration.newAccountID("alice@corp", backend: "home")
    }
    #expect(throws: (any Error).self, "two backends and none named") { try configuration.newAccountID("alice", backend: nil) }
    #expect(try configuration.newAccountID("alice", backend: "home") == AccountID(user: "alice", backend: "home"))
    #expect(throws: CommandError.self) { try one.newAccountID("al ice", backend: nil) }
  }
}
