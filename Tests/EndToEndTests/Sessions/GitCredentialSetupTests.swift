import Foundation
import TestSupport
import Testing

/// The git setup exactly as README.md and accounts(1) show it, run by a real git: the helper
/// `accounts` (git runs git-credential-accounts, the link installed beside accounts) and
/// `!accounts git-credential` (a shell snippet, for a PATH without that link).
@Suite(.serialized, .blocking) struct GitCredentialSetupTests {
  /// The `git config` lines of README.md's "git" section, as a user would paste them.
  static func readmeLines() throws -> [String] {
    let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
    let section = readme.components(separatedBy: "\n### git\n").dropFirst().first?
      .components(separatedBy: "\n## ").first
    return (section ?? "").split(separator: "\n").map(String.init).filter { $0.hasPrefix("git config ") }
  }

  /// The `git config` examples of accounts(1), unescaped from roff.
  static func manLines() throws -> [String] {
    let page = try String(contentsOf: PackagePaths.root.appendingPathComponent("man/accounts.1"), encoding: .utf8)
    return page.split(separator: "\n").filter { $0.hasPrefix(".B git config ") }
      .map { $0.dropFirst(".B ".count).replacingOccurrences(of: "\\-", with: "-") }
  }

  /// The program git runs for a helper string (gitcredentials(7)): a `!` snippet's first word,
  /// else `git-credential-` and the first word (an absolute path is never documented).
  static func program(of line: String) throws -> String {
    let value = try #require(line.components(separatedBy: ".helper ").last)
    let helper = value.trimmingCharacters(in: CharacterSet(charactersIn: "'"))
    let word = try #require(helper.drop { $0 == "!" }.split(separator: " ").first)
    return helper.hasPrefix("!") ? String(word) : "git-credential-\(word)"
  }

  @Test func readmeAndManualShowTheShortHelperFirstThenTheShellSnippet() throws {
    let documented = [
      "git config --global credential.https://git.corp.example.helper accounts",
      "git config --global credential.https://git.corp.example.helper '!accounts git-credential'",
    ]
    #expect(try Self.readmeLines() == documented)
    #expect(try Self.manLines() == documented)
    #expect(try documented.map(Self.program) == ["git-credential-accounts", "accounts"])
  }

  /// Each documented line, run by the shell with only the program it needs on PATH (a link to
  /// the built accounts, as `make install` makes): `git credential fill` gets alice's token
  /// under her rule, approve and reject keep her session, and a clone through the server goes
  /// as alice.
  @Test(arguments: [0, 1]) func theDocumentedSetupWorksWithARealGit(_ index: Int) throws {
    let line = try #require(try Self.readmeLines().dropFirst(index).first)
    let world = try Fixture.gitUsers()
    defer { world.close() }
    let server = try GitServer(in: world)
    let home = world.home
    let host = "127.0.0.1:\(server.url.dropFirst("http://127.0.0.1:".count).prefix { $0 != "/" })"
    let links = "\(home)/bin"
    try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: "\(links)/\(try Self.program(of: line))", withDestinationPath: PackagePaths.accounts)
    let environment = [
      "GIT_CONFIG_GLOBAL": "\(home)/documented-gitconfig",
      "PATH": "\(links):\(world.sandbox.environment["PATH"]!)",
    ]
    let configure = try runProcess(
      "/bin/sh", ["-c", line.replacingOccurrences(of: "https://git.corp.example", with: "http://\(host)")],
      environment: world.sandbox.environment.merging(environment) { $1 }, timeout: 30)
    #expect(configure.status == 0, "\(configure)")

    let token = try world.sandbox.ok(["token", "alice"]).standardOutput.trimmingCharacters(in: .newlines)
    let request = "protocol=http\nhost=\(host)\npath=repo.git\n\n"
    let fill = try world.git(["credential", "fill"], stdin: request, environment: environment, in: "\(home)/work")
    #expect(fill.status == 0 && fill.standardOutput.contains("username=alice\npassword=\(token)\n"), "\(line): \(fill)")
    let credential = String(request.dropLast()) + "username=alice\npassword=\(token)\n\n"
    for verb in ["approve", "reject"] {
      let told = try world.git(["credential", verb], stdin: credential, environment: environment, in: "\(home)/work")
      #expect(told.status == 0 && told.standardError.isEmpty, "\(verb): \(told)")
    }
    let list = try #require(try world.sandbox.json(["list", "--json"]) as? [[String: Any]])
    let state = list.first { $0["user"] as? String == "alice" }
      .flatMap { ($0["token"] as? [String: Any])?["state"] as? String }
    #expect(state == "valid", "git's reject logs out only with --erase-logs-out")

    try "alice:\(token)\n".write(toFile: server.credentialsFile, atomically: true, encoding: .utf8)
    _ = try server.sent()
    let clone = try world.git(["clone", "-q", server.url, "copy"], environment: environment, in: "\(home)/work")
    #expect(clone.status == 0, "\(line): \(clone)")
    #expect(FileManager.default.fileExists(atPath: "\(home)/work/copy/README"))
    #expect(Set(try server.sent()) == ["alice:\(token)"], "the clone went as alice, and only as alice")
  }

  /// README's `accounts --erase-logs-out`: git's reject of the current token logs alice out.
  @Test func theHelperTakesEraseLogsOutAsItsArgument() throws {
    let world = try Fixture.gitUsers()
    defer { world.close() }
    let server = try GitServer(in: world)
    let home = world.home
    let host = "127.0.0.1:\(server.url.dropFirst("http://127.0.0.1:".count).prefix { $0 != "/" })"
    let links = "\(home)/bin"
    try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: "\(links)/git-credential-accounts", withDestinationPath: PackagePaths.accounts)
    let environment = [
      "GIT_CONFIG_GLOBAL": "\(home)/documented-gitconfig", "PATH": "\(links):\(world.sandbox.environment["PATH"]!)",
    ]
    let configure = try world.git(
      ["config", "--global", "credential.http://\(host).helper", "accounts --erase-logs-out"],
      environment: environment, in: home)
    #expect(configure.status == 0, "\(configure)")
    let token = try world.sandbox.ok(["token", "alice"]).standardOutput.trimmingCharacters(in: .newlines)
    let rejected = try world.git(
      ["credential", "reject"], stdin: "protocol=http\nhost=\(host)\nusername=alice\npassword=\(token)\n\n",
      environment: environment, in: "\(home)/work")
    #expect(rejected.status == 0 && rejected.standardError.contains("alice@corp: logged out"), "\(rejected)")
    let list = try #require(try world.sandbox.json(["list", "--json"]) as? [[String: Any]])
    let state = list.first { $0["user"] as? String == "alice" }
      .flatMap { ($0["token"] as? [String: Any])?["state"] as? String }
    #expect(state == "none")
  }
}
