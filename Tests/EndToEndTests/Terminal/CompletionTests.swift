import Foundation
import TestSupport
import Testing

/// The generated completion scripts, run by the real shells against the built binary: commands,
/// options, account, backend and adapter names, tags, settings, the subcommands and accounts of
/// a group, and what follows `--`. That no name is ever run: CompletionSafetyTests.
@Suite(.blocking) struct CompletionTests {
  typealias Shell = CompletionDriver.Shell

  /// The same cases in every shell: commands, options, account and backend names, fixed lists,
  /// and nothing where nothing fits.
  @Test(arguments: Shell.allCases) func completesCommandsOptionsAndNames(_ shell: Shell) throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    let driver = try CompletionDriver(
      program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    func expect(
      _ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      let offered = try driver.offered(shell, line)
      #expect(offered == expected, "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    try expect("accounts pa", ["passwd", "password"])
    try expect("accounts backend ", ["add", "list", "remove", "set", "show", "test"])
    try expect("accounts add bob --re", ["--remember"])
    try expect("accounts password ", ["alice@corp", "alice@test", "bob", "bobby"])
    try expect("accounts password bo", ["bob", "bobby"])
    try expect("accounts --backend corp password ", ["alice@corp", "bob"])
    try expect("accounts --backend=test password ", ["alice@test", "bobby"])
    try expect("accounts list --backend ", ["corp", "test"])
    if shell != .fish { try expect("accounts list --backend=t", ["test"]) }  // fish completes it as an option
    try expect("accounts backend show t", ["test"])
    try expect("accounts backend set t", ["test"])
    try expect("accounts completion ", ["bash", "fish", "zsh"])
    try expect("accounts env --shell ", ["bash", "fish", "zsh"])
    try expect("accounts shell bo", ["bob", "bobby"])
    try expect("accounts hook add ", ["login", "logout", "switch"])
    try expect("accounts hook add lo", ["login", "logout"])
    try expect("accounts hook add switch 'true' --account bo", ["bob", "bobby"])
    try expect("accounts hook add switch 'true' --backend ", ["corp", "test"])
    try expect("accounts password alice@corp ", [])  // one USER only
    try expect("accounts nonsense ", [])
  }

  /// `request [USER] METHOD PATH`: method words wherever the METHOD may go (first, where USER
  /// could be too, or after USER), none after it, any case typed; no options after `--`;
  /// git's three actions for `git-credential`; `-j2` and `-j 2` pass over like `--jobs 2`.
  @Test(arguments: Shell.allCases) func completesMethodsActionsAndTheSeparator(_ shell: Shell) throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    func expect(
      _ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      let offered = try driver.offered(shell, line)
      #expect(offered == expected.sorted(), "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    let methods = ["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"]
    let accounts = ["alice@corp", "alice@test", "bob", "bobby"]
    try expect("accounts request ", accounts + methods)
    try expect("accounts request bo", ["bob", "bobby"])
    try expect("accounts request bob ", methods)
    try expect("accounts request bob P", ["PATCH", "POST", "PUT"])
    try expect("accounts request GET ", [])  // PATH
    try expect("accounts request bob GET ", [])
    try expect("accounts request post me ", [])  // KEY=VALUE
    try expect("accounts request -- ", accounts + methods)
    try expect("accounts request -- -", [])
    try expect("accounts request bob -- -", [])
    try expect("accounts git-credential ", ["erase", "get", "store"])
    try expect("accounts git-credential --erase-logs-out e", ["erase"])
    try expect("accounts git-credential get ", [])
    try expect("accounts status -j2 --t", ["--timeout"])
    try expect("accounts status -j 2 --t", ["--timeout"])
    try expect("accounts request bob pa", ["PATCH"])  // a method word in any case
  }

  /// `backend set NAME` offers the settings of NAME's adapter as `KEY=`, with no space after
  /// it, and nothing once a value is being typed.
  @Test(arguments: Shell.allCases) func completesTheSettingsOfTheBackendBeingSet(_ shell: Shell) throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    func expect(_ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
      let offered = try driver.offered(shell, line)
      #expect(offered == expected, "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    try expect("accounts backend set corp lo", ["login_path=", "logout_path="])
    try expect("accounts backend set test base_url=https://x.example check_p", ["check_path="])
    try expect("accounts backend set corp lease_p", ["lease_prefix="])  // accounts' own
    try expect("accounts backend set corp base_url=ht", [])
    try expect("accounts backend set nowhere lo", [])
    if shell != .fish {
      #expect(try driver.ran(shell, "accounts backend set corp base_u") == ["backend", "set", "corp", "base_url="])
    }
  }

  /// `backend add NAME --adapter A --set` offers A's settings given by value as `KEY=` (the
  /// backend does not exist yet), `--adapter=A` too; accounts' own as well; nothing without an
  /// adapter that loads, and nothing once a value is being typed.
  @Test(arguments: Shell.allCases) func completesTheSettingsOfTheAdapterBeingAdded(_ shell: Shell) throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: world.sandbox.environment)
    defer { driver.close() }
    // client_secret is secret: --secret names it.
    try driver.expect(shell, "accounts backend add new --adapter oauth2 --set client_", ["client_id="])
    try driver.expect(shell, "accounts backend add new --adapter=oauth2 --set gr", ["grant="])
    try driver.expect(shell, "accounts backend add new --adapter oauth2 --set lease_p", ["lease_prefix="])
    try driver.expect(shell, "accounts backend add new --adapter oauth2 --set grant=pa", [])
    // A value being typed after --set=KEY= is a value, not a setting's name.
    try driver.expect(shell, "accounts backend add new --adapter plain --set=base_url=", [])
    try driver.expect(shell, "accounts backend add new --adapter plain --set=codes=ba", [])
    try driver.expect(shell, "accounts backend add new --adapter nowhere --set ba", [])
    try driver.expect(shell, "accounts backend add new --set ba", [])
    if shell != .fish {
      #expect(
        try driver.ran(shell, "accounts backend add new --adapter plain --set base_u")
          == ["backend", "add", "new", "--adapter", "plain", "--set", "base_url="])
    }
  }

  /// `--secret` and `--secret-stdin` take a secret setting's name: of the adapter named on the
  /// line (`backend add`) or of the backend's adapter (`backend set NAME`), or accounts' own.
  @Test(arguments: Shell.allCases) func completesSecretSettingNames(_ shell: Shell) throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: world.sandbox.environment)
    defer { driver.close() }
    try driver.expect(
      shell, "accounts backend add new --adapter oauth2 --secret ",
      ["client_secret", "introspection_client_secret", "lease_store_password"])
    try driver.expect(shell, "accounts backend add new --adapter=signed --secret-stdin p", ["private_key"])
    // plain's, and accounts' own
    try driver.expect(shell, "accounts backend set corp --secret ", ["hmac_key", "lease_store_password"])
    try driver.expect(shell, "accounts backend set corp --secret-stdin h", ["hmac_key"])
    try driver.expect(shell, "accounts backend set nowhere --secret ", [])
    try driver.expect(shell, "accounts backend add new --secret ", [])
    if shell != .fish {
      #expect(
        try driver.ran(shell, "accounts backend set corp --secret lease_s")
          == ["backend", "set", "corp", "--secret", "lease_store_password"])
    }
  }

  /// `backend set NAME --unset` offers the settings NAME has, secret ones included, but not
  /// those its adapter requires: the names `--unset` takes there.
  @Test(arguments: Shell.allCases) func completesTheSettingsToUnset(_ shell: Shell) throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    try world.sandbox.ok(["backend", "set", "corp", "check_path=me", "--secret-stdin", "hmac_key"], stdin: "k\n")
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: world.sandbox.environment)
    defer { driver.close() }
    // Not base_url: plain requires it.
    try driver.expect(shell, "accounts backend set corp --unset ", ["check_path", "hmac_key"])
    try driver.expect(shell, "accounts backend set corp check_path=you --unset h", ["hmac_key"])
    try driver.expect(shell, "accounts backend set test --unset ", [])  // base_url only
    try driver.expect(shell, "accounts backend set nowhere --unset ", [])
    if shell != .fish {
      #expect(
        try driver.ran(shell, "accounts backend set corp --unset che")
          == ["backend", "set", "corp", "--unset", "check_path"])
    }
  }

  /// `__complete` names the settings of `--adapter`, which no backend need have yet, its
  /// secret ones on their own, and those a backend has that --unset takes; a word that is no
  /// adapter name loads nothing and prints nothing.
  @Test func completeNamesTheSettingsOfAnAdapter() throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["backend", "set", "corp", "check_path=me"])
    func printed(_ arguments: [String]) throws -> String { try sandbox.ok(["__complete"] + arguments).standardOutput }
    #expect(try printed(["settings", "--adapter", "oauth2", "--", "gr"]) == "grant\n")
    #expect(try printed(["settings", "--adapter", "oauth2", "--", "client_"]) == "client_id\n")
    #expect(try printed(["secret-settings", "--adapter", "signed"]) == "private_key\nlease_store_password\n")
    #expect(try printed(["secret-settings", "--backend", "corp"]) == "hmac_key\nlease_store_password\n")
    #expect(try printed(["settings", "--backend", "corp", "--adapter", "oauth2", "--", "gr"]) == "grant\n")
    #expect(try printed(["unsettable-settings", "--backend", "corp"]) == "check_path\n")
    #expect(try printed(["unsettable-settings", "--backend", "corp", "--adapter", "oauth2"]) == "check_path\n")
    #expect(try printed(["unsettable-settings", "--adapter", "oauth2"]) == "")
    let words = ["$(touch S1)", "`touch S2`", "-plain", "--help", "plain x", "plain\n", "plain\nx", "'plain'", "../plain", ""]
    for word in words {
      #expect(try printed(["settings", "--adapter", word]) == "", "--adapter \(word)")
      #expect(try printed(["secret-settings", "--adapter", word]) == "", "--adapter \(word)")
    }
  }

  /// After exec's or lease's `--` comes a command line of its own: a command name is offered
  /// there (the shell's own command completion), never an account name.
  @Test(arguments: Shell.allCases) func completesACommandAfterExecsSeparator(_ shell: Shell) throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    func expect(_ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
      let offered = try driver.offered(shell, line)
      #expect(offered == expected, "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    try expect("accounts exec bob -- secret-too", ["secret-tool"])
    try expect("accounts exec -- secret-too", ["secret-tool"])
    try expect("accounts exec --account bob -- secret-too", ["secret-tool"])
    try expect("accounts lease bob alice@corp -- secret-too", ["secret-tool"])
    let afterSeparator = (try? driver.offered(shell, "accounts exec bob -- bo")) ?? []
    #expect(!afterSeparator.contains("bobby"), "\(shell): \(afterSeparator)")
    try expect("accounts exec bo", ["bob", "bobby"])  // before the --, still the account
  }

  /// `__complete` prints only the names that start with the prefix after `--`, byte for byte,
  /// so that a shell never loops over every saved name.
  @Test func completeFiltersByPrefix() throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    #expect(try sandbox.ok(["__complete", "accounts", "--", "bo"]).standardOutput == "bob\nbobby\n")
    #expect(try sandbox.ok(["__complete", "accounts", "--", "alice@t"]).standardOutput == "alice@test\n")
    #expect(try sandbox.ok(["__complete", "accounts", "--backend", "test", "--", "b"]).standardOutput == "bobby\n")
    #expect(try sandbox.ok(["__complete", "accounts", "--", "-"]).standardOutput == "")
    #expect(try sandbox.ok(["__complete", "backends", "--", "c"]).standardOutput == "corp\n")
    #expect(try sandbox.ok(["__complete", "accounts"]).standardOutput == "alice@corp\nalice@test\nbob\nbobby\n")
  }

  /// bash splits words at the `@` and `:` of COMP_WORDBREAKS; completing `alice@co` must still
  /// finish the name, and what lands on the command line (TAB, then Enter) is the whole name.
  @Test(arguments: Shell.allCases) func completesAcrossAtSigns(_ shell: Shell) throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    let driver = try CompletionDriver(
      program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    guard shell != .fish else {
      // fish has no word breaks inside a token; it inserts what it offers.
      let offered = try driver.offered(.fish, "accounts password alice@co")
      #expect(offered == ["alice@corp"])
      return
    }
    func expectRan(
      _ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      let ran = try driver.ran(shell, line)
      #expect(ran == expected, "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    try expectRan("accounts password alice@co", ["password", "alice@corp"])
    try expectRan("accounts password alice@t", ["password", "alice@test"])
    try expectRan("accounts password bobb", ["password", "bobby"])
  }

  /// A name begun with a quote completes as the name does.
  @Test func bashCompletesAQuotedName() throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    #expect(try driver.ran(.bash, "accounts password 'bobb") == ["password", "bobby"])
    #expect(try driver.ran(.bash, "accounts password \"bobb") == ["password", "bobby"])
  }

  /// bash: a user's `set -e`, or an unset COMP_WORDBREAKS, must not break the shell or the
  /// name; and TAB on a very long word stays quick (within 2 s for 40,000 characters, where a
  /// quadratic scan takes 19 s).
  @Test func bashSurvivesUserSettingsAndLongWords() throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    let strict = try CompletionDriver(
      program: PackagePaths.accounts, environment: sandbox.environment.merging(["COMPLETION_TEST_ERREXIT": "1"]) { $1 })
    defer { strict.close() }
    let alive = try strict.transcript(.bash, "accounts rem\t\u{15}echo ALIVE-$((40 + 2))\nexit\n")
    #expect(alive.standardOutput.contains("ALIVE-42"), "TAB under set -e ended the shell: \(alive)")

    let unbroken = try CompletionDriver(
      program: PackagePaths.accounts, environment: sandbox.environment.merging(["COMPLETION_TEST_UNSET_BREAKS": "1"]) { $1 })
    defer { unbroken.close() }
    let ran = try unbroken.ran(.bash, "accounts password alice@c")
    let shown = try unbroken.transcript(.bash, "accounts password alice@c\t\u{15}exit\n")
    #expect(ran == ["password", "alice@corp"], "\(ran) \(shown)")

    let script = PackagePaths.root.appendingPathComponent("completions/accounts.bash").path
    let timing = try runProcess(
      "/bin/bash",
      ["-c", """
        source '\(script)'; accounts() { :; }
        w=a$(printf 'b%.0s' $(seq 40000)); COMP_LINE="accounts remove $w"; COMP_WORDS=(accounts remove "$w"); COMP_CWORD=2
        start=$EPOCHREALTIME; _accounts; echo $(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
        """],
      environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
    let milliseconds = Int(timing.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max
    #expect(milliseconds < 2000, "TAB on a 40,000-character word took \(milliseconds) ms")
  }

  /// Tags: every tag after `list --tag` and `tag USER`, only the account's own after `untag
  /// USER`.
  @Test(arguments: Shell.allCases) func completesExistingTags(_ shell: Shell) throws {
    let world = try Fixture.namesToComplete()
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["tag", "bob", "qa", "smoke"])
    try sandbox.ok(["tag", "bobby", "qa", "nightly"])
    try sandbox.ok(["tag", "alice@corp", "ci.1"])
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    func expect(_ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
      let offered = try driver.offered(shell, line)
      #expect(offered == expected.sorted(), "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    let every = ["ci.1", "nightly", "qa", "smoke"]
    try expect("accounts list --tag ", every)
    try expect("accounts list --tag s", ["smoke"])
    try expect("accounts list --tag qa --tag n", ["nightly"])
    try expect("accounts --backend test list --tag ", ["nightly", "qa"])
    try expect("accounts tag ", ["alice@corp", "alice@test", "bob", "bobby"])
    try expect("accounts tag bob ", every)
    try expect("accounts tag bob qa ", every)
    try expect("accounts untag bob ", ["qa", "smoke"])
    try expect("accounts untag bobby ", ["nightly", "qa"])
    try expect("accounts untag bobby qa n", ["nightly"])
    try expect("accounts untag alice@corp ", ["ci.1"])
    try expect("accounts untag alice@test ", [])
    try expect("accounts --backend corp untag alice ", ["ci.1"])
    try expect("accounts untag nobody ", [])
    try expect("accounts untag ali ", [])  // two accounts start with ali
    // Quotes around a word are the shell's, not the name's.
    try expect("accounts untag 'bobby' ", ["nightly", "qa"])
    try expect("accounts untag \"bob\" s", ["smoke"])
    try expect("accounts --backend 'test' list --tag ", ["nightly", "qa"])
  }

  /// `otp` is a group whose default subcommand takes the account: after `otp`, every shell
  /// offers the subcommands and the accounts, and a word that is no subcommand is the account.
  @Test(arguments: Shell.allCases) func otpCompletesSubcommandsAndAccounts(_ shell: Shell) throws {
    let world = try Fixture().addingBackend("corp").saving("bob").saving("bobby").saving("carol")
    defer { world.close() }
    let sandbox = world.sandbox
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    func expect(_ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
      #expect(try driver.offered(shell, line) == expected, "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    try expect("accounts otp ", ["bob", "bobby", "carol", "code", "set"])
    try expect("accounts otp bo", ["bob", "bobby"])
    try expect("accounts otp s", ["set"])
    try expect("accounts otp bob ", [])  // one USER only
    try expect("accounts otp bob --a", ["--account", "--at"])
    try expect("accounts otp code ca", ["carol"])
    try expect("accounts otp set bo", ["bob", "bobby"])
    try expect("accounts otp set bob --r", ["--remove"])
    try expect("accounts backend nonsense ", [])  // a group whose default takes no word
  }
}

extension CompletionDriver {
  /// Expects `line` in `shell` to offer exactly `expected`.
  func expect(
    _ shell: Shell, _ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let offered = try offered(shell, line)
    #expect(offered == expected, "\(shell): \(line)", sourceLocation: sourceLocation)
  }
}

extension Fixture {
  /// Backends corp and test, and alice@corp, alice@test, bob@corp and bobby@test saved.
  static func namesToComplete() throws -> Fixture {
    try Fixture().addingBackend("corp").addingBackend("test")
      .saving("alice@corp").saving("alice@test").saving("bob@corp").saving("bobby@test")
  }
}
