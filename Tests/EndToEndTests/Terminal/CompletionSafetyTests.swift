import Foundation
import TestSupport
import Testing

/// Completion never runs text from a name. Saved names cannot hold shell characters, but the
/// scripts must not depend on that: whatever `accounts __complete` prints, and whatever the
/// user typed after --backend, reaches the shell's list of candidates as literal words or not
/// at all, in bash, zsh and fish. Names that could never have been saved (a shell or control
/// character in their ASCII part, or a leading '-') are not offered: see Documentation.names.
@Suite(.blocking) struct CompletionSafetyTests {
  typealias Shell = CompletionDriver.Shell

  /// Lines a compromised index, config or adapter directory could make `__complete` print.
  /// S1…S5 would appear in the shells' working directory if anything ran; the directory holds
  /// xbait and abait for globs to find.
  static let hostile = [
    "x$(touch S1)", "x`touch S2`", "x;touch S3", "x|touch S4", "$(touch S5)",
    "*", "x*", "x?ait", "x[b]ait", "x{a,b}", "-rf", "--help", "a b", "x y", "~root", "x~",
    "'q'", "\"dq\"", "$HOME", "x$HOME", "x\\y", "x\ty", "x\u{1B}[31m", "x\u{9B}y", "x=y", "x:y",
  ]
  /// Names that may be saved; every shell offers them as they are.
  static let valid = ["xok", "x.y_z-w+v@corp", "张伟", "bob+qa@example.com"]

  /// A stand-in for `accounts` that answers every `__complete` with `lines`, and records each
  /// call's arguments, `[one][per][bracket]`, one call per line.
  struct FakeProgram {
    let directory = NSTemporaryDirectory() + "accounts-fake-\(UUID().uuidString)"
    var path: String { directory + "/accounts" }
    var log: String { directory + "/calls" }

    init(lines: [String]) throws {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      try (lines.joined(separator: "\n") + "\n").write(
        toFile: directory + "/lines", atomically: true, encoding: .utf8)
      let script = """
        #!/bin/sh
        { printf '[%s]' "$@"; printf '\\n'; } >>'\(log)'
        cat '\(directory)/lines'

        """
      try writeExecutable(script, to: path)
    }

    /// The arguments of every call so far.
    func calls() -> [String] {
      ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
        String.init)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
  }

  /// A completion driver whose `accounts` is a fake printing `hostile` and `valid`.
  func fakeProgramDriver() throws -> (CompletionDriver, FakeProgram) {
    let fake = try FakeProgram(lines: Self.hostile + Self.valid)
    let environment = [
      "HOME": "/nonexistent", "LANG": "C.UTF-8",
      "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
    ]
    return (try CompletionDriver(program: fake.path, environment: environment), fake)
  }

  /// Every kind of name, with and without a prefix: only the valid names come back, unchanged,
  /// and nothing ran or globbed.
  @Test(arguments: Shell.allCases) func hostileCandidatesAreNeverRun(_ shell: Shell) throws {
    let (driver, fake) = try fakeProgramDriver()
    defer {
      driver.close()
      fake.remove()
    }
    let startingWithX = Self.valid.filter { $0.hasPrefix("x") }.sorted()
    for line in [
      "accounts password x",  // account
      "accounts backend show x",  // backend argument
      "accounts --backend x",  // backend option value
      "accounts backend add n --adapter x",  // adapter
      "accounts help x",  // command
    ] {
      let offered = try driver.offered(shell, line)
      #expect(offered == startingWithX, "\(shell): \(line)")
    }
    let all = try driver.offered(shell, "accounts password ")
    #expect(all == Self.valid.sorted(), "\(shell)")
    let stray = try driver.strayFiles()
    #expect(stray == [], "\(shell) ran or globbed a candidate")
  }

  /// A hostile --backend value on the command line reaches `accounts __complete` as one
  /// literal argument (as typed, or with its quotes removed), never evaluated; bash also passes
  /// the word being completed, after `--`.
  @Test(arguments: Shell.allCases) func typedBackendIsPassedLiterally(_ shell: Shell) throws {
    let (driver, fake) = try fakeProgramDriver()
    defer {
      driver.close()
      fake.remove()
    }
    for (typed, unquoted) in [
      ("'$(touch S6)'", "$(touch S6)"),
      ("\"`touch S7`\"", "`touch S7`"),
      ("$HOME", "$HOME"),
      ("x*", "x*"),
    ] {
      let offered = try expectPassedLiterally(
        shell, driver, fake, line: "accounts --backend \(typed) password x", kind: "accounts", option: "--backend",
        typed: typed, unquoted: unquoted)
      #expect(offered == ["x.y_z-w+v@corp", "xok"], "\(shell): --backend \(typed)")
    }
    let stray = try driver.strayFiles()
    #expect(stray == [], "\(shell) ran or globbed the typed value")
  }

  /// A hostile --adapter value on `backend add`, as `--adapter VALUE` or `--adapter=VALUE`,
  /// reaches `accounts __complete` as one literal argument (as typed, or with its quotes
  /// removed), never evaluated; bash also passes the word being completed, after `--`.
  @Test(arguments: Shell.allCases) func typedAdapterIsPassedLiterally(_ shell: Shell) throws {
    let (driver, fake) = try fakeProgramDriver()
    defer {
      driver.close()
      fake.remove()
    }
    for (typed, unquoted) in [
      ("'$(touch S6)'", "$(touch S6)"), ("\"`touch S7`\"", "`touch S7`"), ("'x y'", "x y"), ("x*", "x*"), ("-x", "-x"),
    ] {
      for form in ["--adapter \(typed)", "--adapter=\(typed)"] {
        _ = try expectPassedLiterally(
          shell, driver, fake, line: "accounts backend add n \(form) --set x", kind: "settings", option: "--adapter",
          typed: typed, unquoted: unquoted)
      }
    }
    let stray = try driver.strayFiles()
    #expect(stray == [], "\(shell) ran or globbed the typed value")
  }

  /// Completes `line` (its last word x) and expects each `__complete KIND` call it made to pass
  /// `option` and the value typed there as one argument, as typed or `unquoted`; bash passes
  /// x too, after `--`. Returns what was offered.
  func expectPassedLiterally(
    _ shell: Shell, _ driver: CompletionDriver, _ fake: FakeProgram, line: String, kind: String, option: String,
    typed: String, unquoted: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String] {
    let before = fake.calls().count
    let offered = try driver.offered(shell, line)
    let calls = fake.calls().dropFirst(before).filter { $0.hasPrefix("[__complete][\(kind)]") }
    #expect(!calls.isEmpty, "\(shell) never asked for \(kind): \(line)", sourceLocation: sourceLocation)
    let prefix = shell == .bash ? "[--][x]" : ""
    for call in calls {
      #expect(
        [
          "[__complete][\(kind)][\(option)][\(typed)]\(prefix)",
          "[__complete][\(kind)][\(option)][\(unquoted)]\(prefix)",
        ].contains(call),
        "\(shell): \(line) became \(call)", sourceLocation: sourceLocation)
    }
    return offered
  }

  /// The real binary and adapters: an adapter name in quotes is that name, but a word that is
  /// no adapter name (shell syntax, a blank, a leading '-', a newline) offers no setting even
  /// where part of it names an adapter, and nothing runs.
  @Test(arguments: Shell.allCases) func hostileAdapterWordsOfferNothing(_ shell: Shell) throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: world.sandbox.environment)
    defer { driver.close() }
    let quoted = try driver.offered(shell, "accounts backend add n --adapter 'plain' --set base_")
    #expect(quoted == ["base_url="], "\(shell)")
    #expect(try driver.offered(shell, "accounts backend add n --adapter=plain --secret h") == ["hmac_key"], "\(shell)")
    // fish reads \n in a word as a newline; bash and zsh get $'...' as typed (zsh: unquoted).
    let newline = shell == .fish ? "plain\\nx" : "$'plain\\nx'"
    for typed in [
      "'$(touch S1)'", "$(touch S2)", "\"`touch S3`\"", "'plain x'", "plain\\ x", "-plain", "'plain;touch S4'", newline,
    ] {
      for form in ["--adapter \(typed)", "--adapter=\(typed)"] {
        let settings = try driver.offered(shell, "accounts backend add n \(form) --set base_")
        #expect(settings == [], "\(shell): \(form)")
        let secrets = try driver.offered(shell, "accounts backend add n \(form) --secret h")
        #expect(secrets == [], "\(shell): \(form)")
      }
    }
    let stray = try driver.strayFiles()
    #expect(stray == [], "\(shell) ran or globbed the typed value")
  }

  /// What TAB puts on the command line is the name itself, `@` and `+` and other scripts
  /// included, and the shell passes it back unchanged.
  @Test(arguments: [Shell.bash, .zsh]) func validNamesAreInsertedLiterally(_ shell: Shell) throws {
    let (driver, fake) = try fakeProgramDriver()
    defer {
      driver.close()
      fake.remove()
    }
    for (typed, name) in [
      ("bob+", "bob+qa@example.com"), ("张", "张伟"), ("x.y_z-w+v@c", "x.y_z-w+v@corp"),
    ] {
      let ran = try driver.ran(shell, "accounts password \(typed)")
      #expect(ran == ["password", name], "\(shell): \(typed)")
    }
    let stray = try driver.strayFiles()
    #expect(stray == [])
  }

  /// The real binary over an index and an adapter directory holding hostile names, as a
  /// tampered file would: nothing runs, and no hostile name is offered.
  @Test(arguments: Shell.allCases) func hostileSavedNamesAreNeverRun(_ shell: Shell) throws {
    let world = try Fixture().addingBackend("corp").saving("xok@corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try plant(
      users: ["x$(touch S1)", "x`touch S2`", "x;touch S3", "x*", "x y", "-rf"], in: sandbox)
    let adapters = sandbox.environment["HOME"]! + "/adapters"
    try FileManager.default.createDirectory(atPath: adapters, withIntermediateDirectories: true)
    for name in ["xgood", "x`touch S4`", "x$(touch S5)", "x*", "x y"] {
      FileManager.default.createFile(
        atPath: "\(adapters)/\(name).so", contents: Data(), attributes: [.posixPermissions: 0o644])
    }
    var environment = sandbox.environment
    environment["ACCOUNTS_ADAPTER_PATH"] = adapters
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: environment)
    defer { driver.close() }
    let accounts = try driver.offered(shell, "accounts password x")
    #expect(accounts.allSatisfy { $0 == "xok" }, "\(shell) offered \(accounts)")
    let adapterNames = try driver.offered(shell, "accounts backend add n --adapter x")
    #expect(adapterNames.allSatisfy { $0 == "xgood" }, "\(shell) offered \(adapterNames)")
    let stray = try driver.strayFiles()
    #expect(stray == [], "\(shell) ran or globbed a saved name")
  }

  /// `accounts __complete accounts` itself leaves out names that could not have been saved.
  @Test func completeSkipsInvalidSavedNames() throws {
    let world = try Fixture().addingBackend("corp").saving("xok@corp")
    defer { world.close() }
    let sandbox = world.sandbox
    try plant(users: ["x$(touch S1)", "x y", "-rf", "x\u{202E}y"], in: sandbox)
    try plant(users: ["yy"], backend: "c$(touch S2)", in: sandbox)
    let result = try sandbox.run(["__complete", "accounts"])
    // Once the index loader refuses such a file outright, nothing is printed at all.
    #expect(
      result.status != 0 ? result.standardOutput == "" : result.standardOutput == "xok\n",
      "\(result)")
  }

  /// Adds accounts to the index file by hand, bypassing every check, as a tampered or
  /// hand-edited index would; each copies the saved xok@corp.
  func plant(users: [String], backend: String = "corp", in sandbox: Sandbox) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: sandbox.indexPath))
    var root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    var accounts = try #require(root["accounts"] as? [[String: Any]])
    let template = try #require(accounts.first { $0["user"] as? String == "xok" })
    for user in users {
      var account = template
      account["user"] = user
      account["backend"] = backend
      accounts.append(account)
    }
    root["accounts"] = accounts
    try JSONSerialization.data(withJSONObject: root).write(
      to: URL(fileURLWithPath: sandbox.indexPath))
  }
}
