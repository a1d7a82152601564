import Foundation
import TestSupport
import Testing

/// The account book from the outside: the binary against a real headless keyring, of either
/// provider where it matters. Adding, listing, reading and replacing a password, removing and
/// clearing, many writers at once, and the errors of a mistyped name.
@Suite(.blocking) struct AccountCommandTests {
  @Test(arguments: SecretServiceProvider.allCases) func fromAddToClearTheBookLeavesNoPasswordInAnyFile(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend(
      "corp", adapter: "signed",
      settings: ["base_url=https://api.corp.example", "app_id=170ib799dd511e7b66000163e033322", "ver=1.0"],
      secret: ("private_key", "170ib799dd511e7b66000163e033322"))
    defer { world.close() }
    let sandbox = world.sandbox
    let password = "Sesame-4f1c9-remembered"
    let newPassword = "Sesame-77ab2-replaced"
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: password + "\n")
    try sandbox.ok(["add", "bob"])

    let table = try sandbox.ok([]).standardOutput
    let lines = table.split(separator: "\n").map(String.init)
    #expect(lines.count == 3, "\(table)")
    #expect(lines[0].hasPrefix("  ACCOUNT") && lines[0].contains("BACKEND") && lines[0].contains("PASSWORD") && lines[0].contains("TOKEN"))
    #expect(lines[1].hasPrefix("  alice") && lines[1].contains("corp") && lines[1].contains("remembered") && lines[1].contains("none"))
    #expect(lines[2].hasPrefix("  bob") && lines[2].contains(" - ") && lines[2].contains("never"))

    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.count == 2)
    for entry in list {
      #expect(
        Set(entry.keys) == ["account", "user", "backend", "auto_login", "remembered", "otp", "token", "last_login", "tags", "lease"])
      #expect(entry["otp"] as? Bool == false, "otp is always there, false without a seed")
      #expect(entry["tags"] as? [String] == [], "tags is always there, [] when none")
      #expect(entry["lease"] is NSNull, "lease is always there, null when none")
      let token = try #require(entry["token"] as? [String: Any])
      #expect(Set(token.keys) == ["state", "expires_at"])
      #expect(token["state"] as? String == "none")
      #expect(token["expires_at"] is NSNull)
      #expect(entry["last_login"] is NSNull)
      #expect(entry["auto_login"] as? Bool == false)
    }
    #expect(list[0]["account"] as? String == "alice@corp")
    #expect(list[0]["remembered"] as? Bool == true)
    #expect(list[1]["account"] as? String == "bob@corp")
    #expect(list[1]["remembered"] as? Bool == false)

    #expect(try sandbox.ok(["password", "alice"]).standardOutput == password + "\n")
    #expect(try sandbox.ok(["password", "al"]).standardOutput == password + "\n", "a unique prefix is enough")
    let items = try sandbox.keyringItems(backend: "corp")
    #expect(items.contains("label = accounts: alice@corp password"), "\(items)")
    #expect(items.contains("attribute.account = alice") && items.contains("attribute.kind = password"))
    #expect(items.contains("schema = io.accounts.Secret"))

    try sandbox.ok(["passwd", "alice", "--password-stdin"], stdin: newPassword + "\n")
    #expect(try sandbox.ok(["password", "alice@corp"]).standardOutput == newPassword + "\n")
    let replaced = try sandbox.keyringItems(backend: "corp")
    #expect(replaced.components(separatedBy: "label = accounts: alice@corp password").count == 2, "exactly one item: \(replaced)")

    let bobPassword = try sandbox.run(["password", "bob"])
    #expect(bobPassword.status == 3)
    #expect(bobPassword.standardError == "accounts: bob@corp has no remembered password; remember one with `accounts passwd bob`\n")
    #expect(bobPassword.standardOutput.isEmpty)

    let current = try sandbox.run(["current"])
    #expect(current.status == 3)
    #expect(current.standardError.contains("auto-login slot is empty"))

    try sandbox.ok(["remove", "bob"])
    #expect(try sandbox.ok(["list"]).standardOutput.contains("bob") == false)
    try sandbox.ok(["clear", "--yes"])
    #expect(try sandbox.json(["list", "--json"]) as? [Any] != nil)
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.isEmpty == true)
    #expect(try sandbox.keyringItems(backend: "corp").contains("alice") == false, "clear deletes the secrets too")

    for secret in [password, newPassword] {
      #expect(filesContaining(secret, under: sandbox.keyring.root) == [], "\(secret) leaked into a file")
    }
  }

  @Test(arguments: SecretServiceProvider.allCases) func fiftyConcurrentAddsAreAllSaved(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let failures = ThreadSafeList<String>()
    // KeePassXC 2.7.4 quits (its bus name gone, D-Bus starts gnome-keyring in its place) under
    // 50 concurrent clients while the whole test run loads the machine; alone it takes them.
    // It gets 20; gnome-keyring gets all 50.
    let count = provider == .keepassxc ? 20 : 50
    DispatchQueue.concurrentPerform(iterations: count) { index in
      do {
        // Half remember a password, so the keyring sees concurrent stores too.
        let result = index.isMultiple(of: 2)
          ? try sandbox.run(["add", "user\(index)", "--remember", "--password-stdin"], stdin: "pw\(index)\n")
          : try sandbox.run(["add", "user\(index)"])
        if result.status != 0 { failures.append("user\(index): \(result)") }
      } catch {
        failures.append("user\(index): \(error)")
      }
    }
    #expect(failures.all == [])
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(Set(list.compactMap { $0["user"] as? String }) == Set((0..<count).map { "user\($0)" }))
    #expect(list.filter { $0["remembered"] as? Bool == true }.count == count / 2)
    let index = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath))) as? [String: Any]
    #expect((index?["accounts"] as? [Any])?.count == count)
    #expect(try sandbox.ok(["password", "user18"]).standardOutput == "pw18\n")
  }

  @Test(arguments: SecretServiceProvider.providerBlind) func concurrentRemovesOfOneAccountNeverFailHalfWay(_ provider: SecretServiceProvider) throws {
    let world = try Fixture(provider).addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    for round in 0..<3 {
      try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw-\(round)\n")
      let outcomes = ThreadSafeList<String>()
      DispatchQueue.concurrentPerform(iterations: 6) { _ in
        do {
          let result = try sandbox.run(["remove", "alice"])
          // The first to take the index lock forgets alice; the rest find her gone.
          let understood = result.status == 0 || (result.status == 3 && result.standardError.contains("no account 'alice'"))
          if !understood { outcomes.append("\(result)") }
        } catch {
          outcomes.append("\(error)")
        }
      }
      #expect(outcomes.all == [], "round \(round)")
      #expect(try sandbox.ok(["list"]).standardOutput.contains("alice") == false)
      #expect(try sandbox.keyringItems(backend: "corp").contains("alice") == false)
    }
  }

  /// Guards against losing data: `remove` wants the whole name (a prefix does not do), `clear`
  /// wants --yes or an answer, and a bare Enter means No.
  @Test func removeAndClearNeedTheWholeNameOrAnAnswer() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "pw\n")
    try sandbox.ok(["add", "bob"])
    let prefix = try sandbox.run(["remove", "ali"])
    #expect(prefix.status == 3)
    #expect(prefix.standardError == "accounts: no account 'ali'; did you mean 'alice'?\n")
    #expect(try sandbox.ok(["password", "ali"]).standardOutput == "pw\n", "prefixes still work where nothing is deleted")

    let piped = try sandbox.run(["clear"])
    #expect(piped.status == 2)
    #expect(piped.standardError == "accounts: refusing to forget every account without a terminal to ask; add --yes\n")

    let enter = try runInTerminal(
      PackagePaths.accounts, ["clear"], environment: sandbox.environment,
      steps: [("Forget all 2 saved accounts, with their passwords and tokens? [y/N] ", "\n")])
    #expect(enter.status == 0, "\(enter)")
    #expect(enter.standardOutput.contains("nothing forgotten"), "a bare Enter means No: \(enter)")
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.count == 2)
    #expect(try sandbox.invariantViolations() == [])
  }

  @Test func typosGetSuggestionsAndTheDocumentedStatus() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice"])
    let command = try sandbox.run(["lsit"])
    #expect(command.status == 2)
    #expect(command.standardError == "accounts: unknown command 'lsit' for `accounts`; did you mean 'list'?\n")
    let account = try sandbox.run(["password", "alcie"])
    #expect(account.status == 3)
    #expect(account.standardError == "accounts: no account 'alcie'; did you mean 'alice'?\n")
    let option = try sandbox.run(["add", "bob", "--password", "hunter2"])
    #expect(option.status == 2, "passwords are never taken from argv")
    #expect(option.standardError.contains("unknown option '--password'"))
    let backend = try sandbox.run(["add", "bob@crop"])
    #expect(backend.status == 2)
    #expect(backend.standardError == "accounts: no backend 'crop'; did you mean 'corp'?\n")
    let leaky = ["--set", "base_url=https://x.example", "--set", "app_id=a", "--set", "ver=1"]
    let secret = try sandbox.run(["backend", "add", "leaky", "--adapter", "signed", "--set", "private_key=170ib799dd511e7b"] + leaky)
    #expect(secret.status == 2, "\(secret)")
    #expect(secret.standardError.contains("'private_key' is a secret setting: it is asked for without echo"))
    for setting in ["hmac_key=170ib799dd511e7b", "client_secret=170ib799dd511e7b"] {
      let undeclared = try sandbox.run(["backend", "add", "leaky", "--adapter", "signed", "--set", setting] + leaky)
      #expect(undeclared.status == 2, "\(setting): \(undeclared)")
      #expect(undeclared.standardError.contains("adapter has no setting"))
    }
    #expect(try sandbox.ok(["backend", "list"]).standardOutput.contains("leaky") == false, "nothing recorded")
    #expect(filesContaining("170ib799dd511e7b", under: sandbox.keyring.root) == [])
    let noTerminal = try sandbox.run(["add", "bob", "--remember"])
    #expect(noTerminal.status == 2)
    #expect(noTerminal.standardError == "accounts: no terminal to ask for the password; pipe it in with --password-stdin\n")
    #expect(try sandbox.ok(["list"]).standardOutput.contains("bob") == false, "nothing half-saved")
  }

  @Test func usernamesMayBeEmailAddresses() throws {
    let world = try Fixture().addingBackend("corp").addingBackend("test")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "bob@example.com@corp"])
    try sandbox.ok(["add", "bob@example.com", "--backend", "test"])
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(list.compactMap { $0["account"] as? String } == ["bob@example.com@corp", "bob@example.com@test"])
    let ambiguous = try sandbox.run(["password", "bob@example.com"])
    #expect(ambiguous.status == 2)
    #expect(ambiguous.standardError.contains("could be 'bob@example.com@corp' or 'bob@example.com@test'"))
    let needsBackend = try sandbox.run(["add", "carol"])
    #expect(needsBackend.status == 2)
    #expect(needsBackend.standardError.contains("say which with --backend NAME or USER@BACKEND"))
  }
}
