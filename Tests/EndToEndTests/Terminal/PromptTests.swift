import Foundation
import TestSupport
import Testing

/// What a person at a terminal sees: passwords asked without echo, confirmations asked.
@Suite(.blocking) struct PromptTests {
  @Test func passwordsAreAskedWithoutEcho() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let password = "typed-at-the-tty-5e1f"
    let add = try sandbox.terminal(["add", "carol", "--remember"], [("Password for carol@corp: ", password + "\n")])
    #expect(add.status == 0, "\(add)")
    #expect(!add.standardOutput.contains(password), "echoed: \(add.standardOutput)")
    #expect(add.standardOutput.contains("saved carol@corp and remembered its password"))
    #expect(try sandbox.ok(["password", "carol"]).standardOutput == password + "\n")

    let replacement = "second-typed-secret-77"
    let passwd = try sandbox.terminal(["passwd", "carol"], [("New password for carol@corp: ", replacement + "\r\n")])
    #expect(passwd.status == 0, "\(passwd)")
    #expect(!passwd.standardOutput.contains(replacement), "echoed: \(passwd.standardOutput)")
    #expect(try sandbox.ok(["password", "carol"]).standardOutput == replacement + "\n", "a CR LF line ending is not part of it")

    let empty = try sandbox.terminal(["passwd", "carol"], [("New password for carol@corp: ", "\n")])
    #expect(empty.status == 2)
    #expect(empty.standardOutput.contains("no password given"))
    #expect(try sandbox.ok(["password", "carol"]).standardOutput == replacement + "\n", "nothing lost")
  }

  @Test func clearAsksFirstOnATerminal() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["add", "alice"])
    try sandbox.ok(["add", "bob"])
    let declined = try sandbox.terminal(["clear"], [("Forget all 2 saved accounts, with their passwords and tokens? [y/N] ", "n\n")])
    #expect(declined.status == 0, "\(declined)")
    #expect(declined.standardOutput.contains("nothing forgotten"))
    #expect(try sandbox.ok(["list"]).standardOutput.contains("bob"))
    let accepted = try sandbox.terminal(["clear"], [("[y/N] ", "y\n")])
    #expect(accepted.status == 0, "\(accepted)")
    #expect(accepted.standardOutput.contains("forgot 2 accounts"))
    #expect((try sandbox.json(["list", "--json"]) as? [Any])?.isEmpty == true)
    let piped = try sandbox.run(["clear"])
    #expect(piped.status == 0, "nothing left to forget: \(piped)")
  }

  @Test func secretSettingsAndTestPasswordsAreAskedWithoutEcho() throws {
    let world = try Fixture().serving()
    defer { world.close() }
    let (sandbox, backend) = (world.sandbox, world.backend)
    let key = "170ib799dd511e7b66000163e033322"
    let add = try sandbox.terminal(
      ["backend", "add", "corp", "--adapter", "signed", "--set", "base_url=\(backend.url)/signed/api",
       "--set", "app_id=\(key)", "--set", "ver=1.0"],
      [("private_key for backend corp (The application's private signing key): ", key + "\n")])
    #expect(add.status == 0, "\(add)")
    #expect(!add.standardOutput.contains(key), "the key is never echoed: \(add.standardOutput)")
    let test = try sandbox.terminal(["backend", "test", "corp", "alice"], [("Password for alice@corp: ", "123456\n")])
    #expect(test.status == 0, "\(test)")
    #expect(test.standardOutput.contains("alice@corp: logged in through adapter signed (userId 1001)"))
    #expect(!test.standardOutput.contains("123456"))
  }
}
