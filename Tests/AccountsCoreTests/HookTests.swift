import AccountsContract
import AccountsCore
import AccountsSystem
import Foundation
import TestDoubles
import Testing

/// Which hooks run after an event, in which order, and how config.json keeps them.
@Suite struct HookTests {
  let alice = AccountID(user: "alice", backend: "corp")
  let bob = AccountID(user: "bob", backend: "corp")
  let carol = AccountID(user: "carol", backend: "oss")

  /// Added in a mixed order on purpose: the order they run in is by scope first.
  func configuration() throws -> Configuration {
    try Configuration(hooks: [
      Hook(event: .switch, command: "account alice", scope: .account(alice)),
      Hook(event: .switch, command: "backend corp 1", scope: .backend("corp")),
      Hook(event: .login, command: "global login"),
      Hook(event: .switch, command: "global 1"),
      Hook(event: .switch, command: "backend oss", scope: .backend("oss")),
      Hook(event: .switch, command: "backend corp 2", scope: .backend("corp")),
      Hook(event: .switch, command: "global 2"),
      Hook(event: .switch, command: "account bob", scope: .account(bob)),
    ])
  }

  @Test func globalThenBackendThenAccountEachInTheOrderAdded() throws {
    let run = try configuration().hooks(after: .switch, for: alice)
    #expect(run.map(\.hook.command) == ["global 1", "global 2", "backend corp 1", "backend corp 2", "account alice"])
    #expect(run.map(\.number) == [4, 7, 2, 6, 1], "numbers are those of `accounts hooks`: the order added")
  }

  @Test func onlyTheEventAndTheAccountsScopeMatch() throws {
    let configuration = try configuration()
    #expect(configuration.hooks(after: .switch, for: bob).map(\.hook.command) == ["global 1", "global 2", "backend corp 1", "backend corp 2", "account bob"])
    #expect(configuration.hooks(after: .switch, for: carol).map(\.hook.command) == ["global 1", "global 2", "backend oss"])
    #expect(configuration.hooks(after: .login, for: carol).map(\.hook.command) == ["global login"])
    #expect(configuration.hooks(after: .logout, for: alice).isEmpty)
    // The same user on another backend is another account.
    #expect(!Hook.Scope.account(alice).matches(AccountID(user: "alice", backend: "oss")))
  }

  @Test func configJSONKeepsHooksInOrderAndWhatItDoesNotKnow() throws {
    let tree = try TemporaryTree()
    let store = ConfigStore(paths: tree.paths)
    let hooks = [
      Hook(event: .logout, command: "echo 'bye'", scope: .account(alice), withToken: false, timeout: 3),
      Hook(event: .switch, command: "b", scope: .backend("corp"), withToken: true),
      Hook(event: .login, command: "a"),
    ]
    try store.update { $0.hooks = hooks }
    #expect(try store.load().hooks == hooks)
    // A member a later version adds to a hook survives this version's writes.
    var text = try String(contentsOfFile: tree.paths.config, encoding: .utf8)
    text = text.replacingOccurrences(of: "\"command\" : \"a\"", with: "\"command\" : \"a\", \"when\" : \"weekdays\"")
      .replacingOccurrences(of: "\"command\": \"a\"", with: "\"command\": \"a\", \"when\": \"weekdays\"")
    try text.write(toFile: tree.paths.config, atomically: false, encoding: .utf8)
    try store.update { $0.hooks.removeFirst() }
    let kept = try String(contentsOfFile: tree.paths.config, encoding: .utf8)
    #expect(kept.contains("weekdays"), "\(kept)")
    #expect(try store.load().hooks.map(\.command) == ["b", "a"])
  }

  @Test(arguments: [
    #"{"event": "sleep", "command": "x"}"#,
    #"{"event": "switch", "command": ""}"#,
    #"{"event": "switch", "command": "x", "backend": "corp", "account": "a@corp"}"#,
    #"{"event": "switch", "command": "x", "account": "nobackend"}"#,
    #"{"event": "switch", "command": "x", "timeout": 0}"#,
    #"{"event": "switch", "command": "x", "timeout": 3601}"#,
  ])
  func aMalformedHookMakesTheConfigMalformed(_ hook: String) throws {
    let tree = try TemporaryTree()
    try FileManager.default.createDirectory(atPath: tree.root + "/config/accounts", withIntermediateDirectories: true)
    let text = #"{"version": 1, "backends": {}, "hooks": ["# + hook + "]}"
    try text.write(toFile: tree.paths.config, atomically: false, encoding: .utf8)
    #expect(throws: FileError.self) { try ConfigStore(paths: tree.paths).load() }
  }
}
