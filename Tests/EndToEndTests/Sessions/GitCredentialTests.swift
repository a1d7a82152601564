import Foundation
import TestSupport
import Testing

/// `accounts git-credential` with a real git against a local server that demands basic auth
/// (Tests/Fixtures/git/basic-auth-git-server.py): the directory git runs in decides whose token
/// it sends, through the same rules as every other command.
@Suite(.serialized, .blocking) struct GitCredentialTests {
  @Test func gitSendsAliceTokenUnderHerRuleAndBobsUnderHis() throws {
    let world = try Fixture.gitUsers()
    defer { world.close() }
    let server = try GitServer(in: world)
    let sandbox = world.sandbox
    let home = world.home
    let alice = try sandbox.ok(["token", "alice"]).standardOutput.trimmingCharacters(in: .newlines)
    let bob = try sandbox.ok(["token", "bob"]).standardOutput.trimmingCharacters(in: .newlines)
    #expect(!alice.isEmpty && !bob.isEmpty && alice != bob)
    try "alice:\(alice)\nbob:\(bob)\n".write(toFile: server.credentialsFile, atomically: true, encoding: .utf8)
    _ = try server.sent()

    let inWork = try world.git(["ls-remote", server.url], in: "\(home)/work")
    #expect(inWork.status == 0 && inWork.standardOutput.contains("refs/heads/main"), "\(inWork)")
    #expect(Set(try server.sent()) == ["alice:\(alice)"], "under ~/work git sent alice's token, and only hers")
    let inOSS = try world.git(["ls-remote", server.url], in: "\(home)/oss")
    #expect(inOSS.status == 0 && inOSS.standardOutput.contains("refs/heads/main"), "\(inOSS)")
    #expect(Set(try server.sent()) == ["bob:\(bob)"], "under ~/oss git sent bob's token, and only his")

    let clone = try world.git(["clone", "-q", server.url, "copy"], in: "\(home)/oss")
    #expect(clone.status == 0, "\(clone)")
    #expect(FileManager.default.fileExists(atPath: "\(home)/oss/copy/README"))
    #expect(Set(try server.sent()) == ["bob:\(bob)"], "the whole clone went as bob")
    let fetch = try world.git(["fetch", "-q"], in: "\(home)/oss/copy")
    #expect(fetch.status == 0, "\(fetch)")
    #expect(Set(try server.sent()) == ["bob:\(bob)"], "a fetch inside the clone, under ~/oss, goes as bob")

    // No rule and an empty slot: the helper answers nothing, git (never prompting) fails, and
    // no token was sent to anyone.
    let nowhere = try world.git(["ls-remote", server.url], in: home)
    #expect(nowhere.status != 0, "\(nowhere)")
    #expect(try server.sent().isEmpty)
    #expect(!nowhere.standardError.contains(alice) && !nowhere.standardError.contains(bob))

    // The host no longer named by corp: nothing for git, under alice's rule too.
    try sandbox.ok(["backend", "set", "corp", "--unset", "git_host"])
    let unnamed = try world.git(["ls-remote", server.url], in: "\(home)/work")
    #expect(unnamed.status != 0, "\(unnamed)")
    #expect(try server.sent().isEmpty)
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  @Test func getStoreAndEraseSpeakTheProtocol() throws {
    let world = try Fixture.gitUsers()
    defer { world.close() }
    let server = try GitServer(in: world)
    let sandbox = world.sandbox
    let home = world.home
    let port = server.url.dropFirst("http://127.0.0.1:".count).prefix { $0 != "/" }
    let request = "protocol=http\nhost=127.0.0.1:\(port)\npath=repo.git\n\n"

    let get = try sandbox.ok(["git-credential", "get"], stdin: request, in: "\(home)/work")
    let token = try sandbox.ok(["token", "alice"]).standardOutput
    #expect(get.standardOutput == "username=alice\npassword=\(token)", "an expired-free login, then the same token: \(get)")
    #expect(get.standardError.isEmpty || !get.standardError.contains(token.trimmingCharacters(in: .newlines)))

    // git already knows another user for this URL: not ours to answer.
    let otherUser = try sandbox.ok(["git-credential", "get"], stdin: "host=127.0.0.1:\(port)\nusername=carol\n", in: "\(home)/work")
    #expect(otherUser.standardOutput.isEmpty)
    // The account here is on another backend than the host's: nothing, exit 0.
    try sandbox.addBackend("gh")
    try sandbox.ok(["add", "dora@gh"])
    let elsewhere = try sandbox.ok(
      ["git-credential", "get"], stdin: request, environment: ["ACCOUNTS_ACCOUNT": "dora@gh"], in: "\(home)/work")
    #expect(elsewhere.standardOutput.isEmpty && elsewhere.standardError.isEmpty, "\(elsewhere)")
    // A token goes over http only where the backend allows insecure transport itself.
    try sandbox.ok(["backend", "set", "gh", "git_host=git.gh.example"])
    let plainHTTP = try sandbox.ok(
      ["git-credential", "get"], stdin: "protocol=http\nhost=git.gh.example\n\n",
      environment: ["ACCOUNTS_ACCOUNT": "dora@gh"], in: "\(home)/work")
    #expect(plainHTTP.standardOutput.isEmpty, "\(plainHTTP)")
    #expect(
      plainHTTP.standardError
        == "accounts: git-credential: no token for http://git.gh.example (backend gh): a token goes to git over https, "
        + "or over http only to this machine (localhost, 127.0.0.1, [::1]) for a backend with allow_insecure_transport=true\n")
    // A host no backend names, and an action git may add one day: nothing, exit 0.
    let unknownHost = try sandbox.ok(["git-credential", "get"], stdin: "protocol=https\nhost=example.org\n", in: "\(home)/work")
    #expect(unknownHost.standardOutput.isEmpty)
    #expect(try sandbox.ok(["git-credential", "approve"], stdin: request).standardOutput.isEmpty)

    // Hostile input is refused on stderr, without echoing it.
    let crlf = try sandbox.run(["git-credential", "get"], stdin: "host=127.0.0.1:\(port)\r\n\r\n", in: "\(home)/work")
    #expect(crlf.status == 2 && crlf.standardOutput.isEmpty, "\(crlf)")
    #expect(crlf.standardError == "accounts: git-credential: git's request refused: line 1 holds a carriage return; git writes KEY=VALUE lines ended by a newline; see `man git-credential`\n")

    // store keeps nothing new; erase logs out only when asked to.
    let stored = try sandbox.ok(["git-credential", "store"], stdin: request + "username=alice\npassword=\(token)", in: "\(home)/work")
    #expect(stored.standardOutput.isEmpty && stored.standardError.isEmpty)
    try sandbox.ok(["git-credential", "erase"], stdin: request, in: "\(home)/work")
    let kept = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(kept.first { $0["user"] as? String == "alice" }.flatMap { ($0["token"] as? [String: Any])?["state"] as? String } == "valid")
    // A rejected credential that is not the current session (an older token) ends nothing.
    try sandbox.ok(["git-credential", "--erase-logs-out", "erase"], stdin: request.dropLast() + "username=alice\npassword=stale\n", in: "\(home)/work")
    let stillValid = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(stillValid.first { $0["user"] as? String == "alice" }.flatMap { ($0["token"] as? [String: Any])?["state"] as? String } == "valid")
    let erased = try sandbox.ok(
      ["git-credential", "--erase-logs-out", "erase"], stdin: request.dropLast() + "username=alice\npassword=\(token)\n", in: "\(home)/work")
    #expect(erased.standardError.contains("alice@corp: logged out"), "\(erased)")
    let after = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    #expect(after.first { $0["user"] as? String == "alice" }.flatMap { ($0["token"] as? [String: Any])?["state"] as? String } == "none")
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  /// On a full request (protocol= and host=, as git writes it), git's username= decides: the
  /// rule's account answers for its own user, another user saved on the host's backend answers
  /// for itself, a user saved nowhere gets nothing. A token that is empty or not one line
  /// (changed in the keyring behind accounts' back) never reaches git.
  @Test func gitsUsernameChoosesTheAccountAndATokenThatIsNotOneLineIsNeverGiven() throws {
    let world = try Fixture.gitUsers()
    defer { world.close() }
    let server = try GitServer(in: world)
    let sandbox = world.sandbox
    let work = "\(world.home)/work"
    let port = server.url.dropFirst("http://127.0.0.1:".count).prefix { $0 != "/" }
    // Capitals, as a hand-written request may have them: the scheme is https all the same.
    let request = "protocol=HTTPS\nhost=127.0.0.1:\(port)\n"
    let asAlice = try sandbox.ok(["git-credential", "get"], stdin: request + "username=alice\n\n", in: work)
    let token = try sandbox.ok(["token", "alice"]).standardOutput
    #expect(asAlice.standardOutput == "username=alice\npassword=\(token)", "\(asAlice)")
    let asBob = try sandbox.ok(["git-credential", "get"], stdin: request + "username=bob\n\n", in: work)
    let bobsToken = try sandbox.ok(["token", "bob"]).standardOutput
    #expect(asBob.standardOutput == "username=bob\npassword=\(bobsToken)", "git asked for bob, under alice's rule: \(asBob)")
    let asCarol = try sandbox.ok(["git-credential", "get"], stdin: request + "username=carol\n\n", in: work)
    #expect(asCarol.standardOutput.isEmpty && asCarol.standardError.isEmpty, "carol is saved nowhere: \(asCarol)")

    for notOneLine in ["", "first\nsecond", "first\rsecond"] {
      let plant = try runProcess(
        "/usr/bin/secret-tool",
        [
          "store", "--label", "planted", "xdg:schema", "io.accounts.Secret",
          "backend", "corp", "account", "alice", "kind", "token",
        ],
        environment: sandbox.environment, standardInput: notOneLine, timeout: 20)
      #expect(plant.status == 0, "\(plant)")
      // Read from the keyring itself: the kernel's token cache still holds the copy it was given.
      let refused = try sandbox.run(
        ["git-credential", "get"], stdin: request + "\n", environment: ["ACCOUNTS_TOKEN_CACHE": "0"], in: work)
      #expect(refused.status == 1 && refused.standardOutput.isEmpty, "\(refused)")
      #expect(
        refused.standardError
          == "accounts: git-credential: the token of alice@corp cannot be given to git: it is empty or not one line\n")
    }
  }

  /// git's own way to say "my bob login on this host": the user in the remote's URL. A real git
  /// sends that account's token whatever the directory or the slot would choose, and nothing for
  /// a user that is saved on no backend naming the host.
  @Test func theUserInTheRemotesURLChoosesTheAccount() throws {
    let world = try Fixture.gitUsers()
    defer { world.close() }
    let server = try GitServer(in: world)
    let sandbox = world.sandbox
    let home = world.home
    try sandbox.ok(["switch", "bob"])  // the slot holds bob
    let alice = try sandbox.ok(["token", "alice"]).standardOutput.trimmingCharacters(in: .newlines)
    let bob = try sandbox.ok(["token", "bob"]).standardOutput.trimmingCharacters(in: .newlines)
    try "alice:\(alice)\nbob:\(bob)\n".write(toFile: server.credentialsFile, atomically: true, encoding: .utf8)
    _ = try server.sent()
    let url = { (user: String) in server.url.replacingOccurrences(of: "http://", with: "http://\(user)@") }
    // With a user in the URL, curl first tries that user with an empty password: no token.
    let tokensSent = { Set(try server.sent().filter { !$0.hasSuffix(":") }) }

    for directory in [home, "\(home)/oss"] {  // the slot's account, then bob's rule
      let asAlice = try world.git(["ls-remote", url("alice")], in: directory)
      #expect(asAlice.status == 0 && asAlice.standardOutput.contains("refs/heads/main"), "\(directory): \(asAlice)")
      #expect(try tokensSent() == ["alice:\(alice)"], "the URL's alice, in \(directory)")
    }
    let asBob = try world.git(["ls-remote", url("bob")], in: "\(home)/work")
    #expect(asBob.status == 0, "\(asBob)")
    #expect(try tokensSent() == ["bob:\(bob)"], "the URL's bob, under alice's rule")
    // An account selection that names no saved account (a stale ACCOUNTS_ACCOUNT) does not
    // stand in the way of the URL's user.
    let stale = try world.git(["ls-remote", url("bob")], environment: ["ACCOUNTS_ACCOUNT": "zed"], in: home)
    #expect(stale.status == 0, "\(stale)")
    #expect(try tokensSent() == ["bob:\(bob)"], "the URL's bob, whatever ACCOUNTS_ACCOUNT says")

    let asCarol = try world.git(["ls-remote", url("carol")], in: "\(home)/work")
    #expect(asCarol.status != 0, "\(asCarol)")
    #expect(try tokensSent().isEmpty, "carol is saved nowhere: no token went anywhere")
    #expect(!asCarol.standardError.contains(alice) && !asCarol.standardError.contains(bob))
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  /// With `--erase-logs-out`, a token the server rejects is deleted, but the account stays the
  /// one in use (the slot keeps it): `accounts login` with no name logs it in again, and git
  /// works again with the new token.
  @Test func aTokenGitErasesLeavesTheAccountInUseSoThatALoginMakesGitWorkAgain() throws {
    let world = try Fixture.gitUsers()
    defer { world.close() }
    let server = try GitServer(in: world)
    let sandbox = world.sandbox
    let home = world.home
    let host = "127.0.0.1:\(server.url.dropFirst("http://127.0.0.1:".count).prefix { $0 != "/" })"
    let erasing = ["GIT_CONFIG_GLOBAL": "\(home)/erasing-gitconfig"]
    try "[credential \"http://\(host)\"]\n\thelper = \(PackagePaths.accounts) git-credential --erase-logs-out\n"
      .write(toFile: "\(home)/erasing-gitconfig", atomically: true, encoding: .utf8)
    try sandbox.ok(["switch", "alice"])
    let rejected = try sandbox.ok(["token", "alice"]).standardOutput.trimmingCharacters(in: .newlines)

    // The server knows no token: it rejects alice's, and git erases it.
    let refused = try world.git(["ls-remote", server.url], environment: erasing, in: home)
    #expect(refused.status != 0, "\(refused)")
    #expect(Set(try server.sent()) == ["alice:\(rejected)"])
    #expect(
      refused.standardError.contains(
        "alice@corp: logged out (git erased its credential); it stays the account in use: "
          + "git's next request logs it in again with the remembered password"), "\(refused)")
    let list = try #require(try sandbox.json(["list", "--json"]) as? [[String: Any]])
    let entry = try #require(list.first { $0["user"] as? String == "alice" })
    #expect(entry["auto_login"] as? Bool == true, "alice keeps the slot")
    #expect((entry["token"] as? [String: Any])?["state"] as? String == "none")

    try sandbox.ok(["login"], in: home)
    let renewed = try sandbox.ok(["token", "alice"]).standardOutput.trimmingCharacters(in: .newlines)
    #expect(renewed != rejected)
    try "alice:\(renewed)\n".write(toFile: server.credentialsFile, atomically: true, encoding: .utf8)
    let again = try world.git(["ls-remote", server.url], environment: erasing, in: home)
    #expect(again.status == 0 && again.standardOutput.contains("refs/heads/main"), "\(again)")
    #expect(Set(try server.sent()) == ["alice:\(renewed)"])

    // bob, named by the URL, is not the account in use: what is said of him does not claim so.
    let asBob = try world.git(
      ["ls-remote", server.url.replacingOccurrences(of: "http://", with: "http://bob@")], environment: erasing, in: home)
    #expect(asBob.status != 0, "\(asBob)")
    #expect(
      asBob.standardError.contains(
        "bob@corp: logged out (git erased its credential); git's next request logs it in again with the remembered password"),
      "\(asBob)")
    #expect(try sandbox.invariantViolations().isEmpty)
  }

  /// A token crosses no network in the clear: over http, git gets one only for this machine,
  /// and only from a backend that allows insecure transport; over https always. A real git asks.
  @Test func overPlainHTTPATokenGoesOnlyToThisMachine() throws {
    let world = try Fixture.gitUsers()
    defer { world.close() }
    _ = try GitServer(in: world)
    let sandbox = world.sandbox
    let work = "\(world.home)/work"
    let everywhere = ["GIT_CONFIG_GLOBAL": "\(world.home)/helper-gitconfig"]
    try "[credential]\n\thelper = \(PackagePaths.accounts) git-credential\n"
      .write(toFile: "\(world.home)/helper-gitconfig", atomically: true, encoding: .utf8)
    let token = try sandbox.ok(["token", "alice"]).standardOutput.trimmingCharacters(in: .newlines)
    for (host, loopback) in [("git.corp.example", false), ("localhost:8443", true), ("127.0.0.2", true), ("[::1]:80", true)] {
      try sandbox.ok(["backend", "set", "corp", "git_host=\(host)"])
      for scheme in ["http", "https"] {
        let fill = try world.git(
          ["credential", "fill"], stdin: "protocol=\(scheme)\nhost=\(host)\n\n", environment: everywhere, in: work)
        if scheme == "https" || loopback {
          #expect(fill.status == 0 && fill.standardOutput.contains("username=alice\npassword=\(token)\n"), "\(scheme)://\(host): \(fill)")
        } else {
          #expect(fill.status != 0 && !fill.standardOutput.contains(token), "\(scheme)://\(host): \(fill)")
          #expect(fill.standardError.contains("accounts: git-credential: no token for http://git.corp.example (backend corp)"))
        }
      }
    }
    // Without allow_insecure_transport, not even to this machine.
    try sandbox.addBackend("gh")
    try sandbox.ok(["backend", "set", "gh", "git_host=localhost:8443"])
    try sandbox.ok(["add", "dora@gh"])
    let fill = try world.git(
      ["credential", "fill"], stdin: "protocol=http\nhost=localhost:8443\nusername=dora\n\n", environment: everywhere,
      in: work)
    #expect(fill.standardError.contains("accounts: git-credential: no token for http://localhost:8443 (backend gh)"), "\(fill)")
    #expect(fill.status != 0 && !fill.standardOutput.contains(token), "\(fill)")
  }

  @Test func anExpiredTokenIsRenewedWithTheRememberedPasswordAndNothingIsEverAsked() throws {
    let world = try Fixture.gitUsers(tokenLifetime: 60)
    defer { world.close() }
    let server = try GitServer(in: world)
    let sandbox = world.sandbox
    let home = world.home
    let port = server.url.dropFirst("http://127.0.0.1:".count).prefix { $0 != "/" }
    let request = "protocol=http\nhost=127.0.0.1:\(port)\n\n"
    let first = try sandbox.ok(["git-credential", "get"], stdin: request, in: "\(home)/work")
    // A minute later (the test clock of the debug build): the token has expired.
    let second = try sandbox.ok(
      ["git-credential", "get"], stdin: request, environment: ["ACCOUNTS_TEST_CLOCK_OFFSET": "61"], in: "\(home)/work")
    #expect(first.standardOutput.hasPrefix("username=alice\npassword=") && second.standardOutput.hasPrefix("username=alice\npassword="))
    #expect(first.standardOutput != second.standardOutput, "the expired token was replaced by a new login")
    let secondToken = String(second.standardOutput.split(separator: "\n")[1].dropFirst("password=".count))
    #expect(!second.standardError.contains(secondToken))

    // An account with no session and no remembered password: one line on stderr, exit 3, no
    // prompt (git owns the terminal) and nothing on stdout.
    try sandbox.ok(["add", "carol"])
    let carol = try sandbox.run(
      ["git-credential", "get"], stdin: request, environment: ["ACCOUNTS_ACCOUNT": "carol"], timeout: 20,
      in: "\(home)/work")
    #expect(carol.status == 3 && carol.standardOutput.isEmpty, "\(carol)")
    #expect(carol.standardError.split(separator: "\n").count == 1, "\(carol)")
  }
}

extension Fixture {
  /// alice (123456) and bob (hunter2), remembered, on corp, on a test backend whose tokens last
  /// `tokenLifetime` seconds; ~/work ruled by alice and ~/oss by bob, and ~/server for the git
  /// server's repository.
  static func gitUsers(tokenLifetime: Int? = nil) throws -> Fixture {
    let world = try Fixture().serving(tokenLifetime: tokenLifetime).addingServedBackend("corp")
      .saving("alice", password: "123456").saving("bob", password: "hunter2")
    for directory in ["work", "oss", "server"] {
      try FileManager.default.createDirectory(atPath: "\(world.home)/\(directory)", withIntermediateDirectories: true)
    }
    try world.sandbox.ok(["rule", "add", "\(world.home)/work", "alice"])
    try world.sandbox.ok(["rule", "add", "\(world.home)/oss", "bob"])
    return world
  }

  /// Runs git in `directory` with only our config (~/gitconfig, or `extra`'s
  /// GIT_CONFIG_GLOBAL), never prompting, bounded in time.
  func git(
    _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:], in directory: String
  ) throws -> ProcessResult {
    try runProcess(
      "/usr/bin/git", arguments,
      environment: sandbox.environment.merging([
        "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_GLOBAL": "\(home)/gitconfig", "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_HTTP_LOW_SPEED_LIMIT": "1", "GIT_HTTP_LOW_SPEED_TIME": "20",
      ]) { $1 }.merging(extra) { $1 },
      standardInput: stdin, timeout: 60, currentDirectory: directory)
  }
}

/// A local server that demands basic auth (Tests/Fixtures/git/basic-auth-git-server.py) for a
/// fixture: its repository in ~/server, corp's git_host naming it, and ~/gitconfig making
/// `accounts git-credential` git's helper for it. It stops with the fixture.
final class GitServer {
  let url: String
  /// The USER:TOKEN pairs the server accepts, one a line.
  let credentialsFile: String
  let logFile: String
  private let process: SpawnedProcess

  init(in world: Fixture) throws {
    let home = world.home
    credentialsFile = "\(home)/server-credentials"
    logFile = "\(home)/server-log"
    try Data().write(to: URL(fileURLWithPath: credentialsFile))
    try Data().write(to: URL(fileURLWithPath: logFile))
    let urlFile = "\(home)/server-url"
    process = try SpawnedProcess(
      "/usr/bin/python3",
      [
        PackagePaths.root.appendingPathComponent("Tests/Fixtures/git/basic-auth-git-server.py").path,
        "--root", "\(home)/server", "--credentials", credentialsFile, "--log", logFile,
        "--url-file", urlFile, "--lifetime", "120",
      ],
      environment: ["PATH": "/usr/bin:/bin"])
    var found: String?
    for _ in 0..<200 where found == nil && process.isRunning {
      found = try? String(contentsOfFile: urlFile, encoding: .utf8)
      if found == nil { usleep(100_000) }
    }
    guard let found else {
      process.terminate()
      throw GitServerError.didNotStart
    }
    url = found
    let process = process
    world.onClose {
      process.terminate()
      process.waitUntilExit()
    }
    let port = found.dropFirst("http://127.0.0.1:".count).prefix { $0 != "/" }
    try world.sandbox.ok(["backend", "set", "corp", "git_host=127.0.0.1:\(port)"])

    let gitConfig = "[credential \"http://127.0.0.1:\(port)\"]\n\thelper = \(PackagePaths.accounts) git-credential\n"
    try gitConfig.write(toFile: "\(home)/gitconfig", atomically: true, encoding: .utf8)
  }

  /// The USER:TOKEN pairs the server was sent since the last call.
  func sent() throws -> [String] {
    let pairs = try String(contentsOfFile: logFile, encoding: .utf8).split(separator: "\n").map(String.init)
    try Data().write(to: URL(fileURLWithPath: logFile))
    return pairs
  }

  enum GitServerError: Error { case didNotStart }
}
