import AccountsContract
import AccountsCore
import Testing

@testable import AccountsCLI
import AccountsSystem

/// The command line as the parser reads it against the command table: commands, groups and
/// their defaults, options anywhere, and the usage errors of every mistake.
@Suite struct ParserTests {
  let parser = Parser(commands: CommandTable.all, defaultCommand: "list")

  func invocation(_ arguments: [String]) throws -> Invocation {
    guard case .run(let invocation) = try parser.parse(arguments) else {
      Issue.record("\(arguments) did not parse to a command")
      throw CommandError.usage("not a command")
    }
    return invocation
  }

  func usageError(_ arguments: [String]) -> CommandError? {
    do {
      _ = try parser.parse(arguments)
      return nil
    } catch {
      return error
    }
  }

  /// The invocation `arguments` parse to; nil for help or the version.
  func parsedRun(_ arguments: [String]) throws -> Invocation? {
    guard case .run(let invocation) = try parser.parse(arguments) else { return nil }
    return invocation
  }

  /// The message of the error parsing `arguments` gives; nil when it parses.
  func message(_ arguments: [String]) -> String? {
    do {
      _ = try parser.parse(arguments)
      return nil
    } catch {
      return error.message
    }
  }

  @Test func noCommandMeansList() throws {
    #expect(try invocation([]).path.name == "list")
    #expect(try invocation(["--json"]).path.name == "list")
    #expect(try invocation(["--json"]).json)
    #expect(try invocation(["ls"]).path.name == "list", "aliases")
  }

  @Test func globalOptionsGoAnywhere() throws {
    let before = try invocation(["--backend", "corp", "add", "bob"])
    let after = try invocation(["add", "bob", "--backend=corp"])
    for parsed in [before, after] {
      #expect(parsed.path.name == "add")
      #expect(parsed.backend == "corp")
      #expect(parsed.argument(AddCommand.user) == "bob")
    }
  }

  @Test func optionsAndArgumentsOfACommand() throws {
    let parsed = try invocation(["add", "alice", "--remember", "--password-stdin"])
    #expect(parsed.isSet(AddCommand.remember))
    #expect(parsed.isSet(SharedArguments.passwordStdin))
    let backend = try invocation(["backend", "add", "corp", "--adapter", "signed", "--set", "a=1", "--set=b=2=3"])
    #expect(backend.path.name == "backend add")
    #expect(backend.value(BackendAddCommand.adapter) == "signed")
    #expect(backend.values(BackendAddCommand.set) == ["a=1", "b=2=3"])
    #expect(try invocation(["backend"]).path.name == "backend list", "a group runs its default")
    #expect(try invocation(["add", "--", "-odd"]).argument(AddCommand.user) == "-odd", "-- ends options")
  }

  /// `-j2` is `-j 2`, as getopt reads a short option that takes a value; a flag takes none.
  @Test func shortOptionWithAttachedValue() throws {
    #expect(try invocation(["status", "-j2"]).value(StatusCommand.jobs) == "2")
    #expect(try invocation(["status", "-j", "16"]).value(StatusCommand.jobs) == "16")
    #expect(try invocation(["status", "-j=3"]).value(StatusCommand.jobs) == "=3", "as getopt: all after the letter")
    #expect(usageError(["clear", "-yy"])?.message == "unknown option '-yy' for `accounts clear`")
  }

  @Test func helpAndVersion() throws {
    guard case .help(let path) = try parser.parse(["add", "--help"]) else { Issue.record("no help"); return }
    #expect(path?.name == "add")
    guard case .help(nil) = try parser.parse(["-h"]) else { Issue.record("no help"); return }
    guard case .version = try parser.parse(["--version"]) else { Issue.record("no version"); return }
    guard case .help(let group) = try parser.parse(["backend", "--help"]) else { Issue.record("no help"); return }
    #expect(group?.name == "backend")
  }

  @Test func mistakesAreUsageErrorsWithAFix() throws {
    let cases: [([String], String, String?)] = [
      (["lsit"], "unknown command 'lsit' for `accounts`", "did you mean 'list'?"),
      (["backend", "ad"], "unknown command 'ad' for `accounts backend`", "did you mean 'add'?"),
      (["add", "bob", "--rember"], "unknown option '--rember' for `accounts add`", "did you mean '--remember'?"),
      (["add"], "`accounts add` needs USER", "usage: accounts add USER [--remember] [--password-stdin]"),
      (["add", "a", "b"], "`accounts add` takes one account; a password is read from stdin or a prompt, never from the command line", "usage: accounts add USER [--remember] [--password-stdin]"),
      (["clear", "b"], "unexpected argument 'b' for `accounts clear`", "usage: accounts clear [--yes] [--force]"),
      (["backend", "add", "corp"], "`accounts backend add` needs --adapter ADAPTER", "usage: accounts backend add NAME --adapter ADAPTER [--set KEY=VALUE...] [--secret-stdin NAME...] [--secret NAME...]"),
      (["list", "--backend"], "--backend needs a value (NAME)", "see `accounts list --help`"),
      (["list", "--json=yes"], "--json takes no value", "see `accounts list --help`"),
      (["list", "--backend", "a", "--backend", "b"], "--backend is given twice", "give it once"),
      (["-x"], "unknown option '-x' for `accounts`", "see `accounts --help`"),
    ]
    for (arguments, message, fix) in cases {
      let error = usageError(arguments)
      #expect(error?.status == .usage, "\(arguments)")
      #expect(error?.message == message, "\(arguments)")
      #expect(error?.fix == fix, "\(arguments)")
    }
  }

  /// A word too many for a command that reads a secret may be that secret, typed on the
  /// command line: the error says where the secret goes and never repeats the word (CI logs).
  @Test(arguments: [
    (["add", "zed@corp", "hunter2"], "`accounts add` takes one account; a password is read"),
    (["passwd", "alice", "hunter2"], "`accounts passwd` takes one account; a password is read"),
    (["otp", "set", "alice", "hunter2"], "`accounts otp set` takes one account; a seed is read"),
    (["token", "alice", "hunter2"], "`accounts token` takes one account; a password is read"),
    (["shell", "alice", "hunter2"], "`accounts shell` takes one account; a password is read"),
    (["switch", "alice", "hunter2"], "`accounts switch` takes one account; a password is read"),
    (["backend", "add", "corp", "hunter2", "--adapter", "plain"], "`accounts backend add` takes NAME; a secret setting is read"),
    (["backend", "test", "corp", "alice", "hunter2"], "`accounts backend test` takes NAME USER; a password is read"),
    (["git-credential", "get", "hunter2"], "`accounts git-credential` takes ACTION; a credential is read from stdin, never"),
  ])
  func aWordTooManyForACommandThatReadsASecretIsNotRepeated(arguments: [String], message: String) throws {
    let error = usageError(arguments)
    #expect(error?.status == .usage)
    #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "no error")")
    #expect(error.map { !"\($0.message) \($0.fix ?? "")".contains("hunter2") } == true)
  }

  @Test func everyCommandHasHelpThatNamesItsOptions() throws {
    for path in CommandTable.paths where !path.command.hidden {
      let help = HelpRenderer.help(for: path, in: CommandTable.all)
      #expect(help.hasPrefix("Usage: accounts \(path.name)"))
      for option in path.command.options { #expect(help.contains("--\(option.long)"), "\(path.name) --\(option.long)") }
      for argument in path.command.arguments { #expect(help.contains(argument.name)) }
      #expect(help.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(path.name) help fits 80 columns")
    }
  }

  @Test func optionNamesMeanOneThingEverywhere() {
    // The completion scripts skip an option's value by the option's name alone.
    var takesValue: [String: Bool] = [:]
    for path in CommandTable.paths {
      for option in path.command.options + GlobalOptions.all {
        if let known = takesValue[option.long] { #expect(known == option.takesValue, "--\(option.long)") }
        takesValue[option.long] = option.takesValue
      }
    }
  }

  @Test func settingsParseAsKeyValuePairsOnce() throws {
    let settings = try BackendSettingsRequest.parseSettings(["base_url=http://h/a=b", "ver=1.0", "salt="])
    #expect(settings == ["base_url": "http://h/a=b", "ver": "1.0", "salt": ""])
    #expect(throws: CommandError.self) { try BackendSettingsRequest.parseSettings(["ver=1", "ver=2"]) }
    #expect(throws: CommandError.self) { try BackendSettingsRequest.parseSettings(["=x"]) }
    #expect(throws: CommandError.self) { try BackendSettingsRequest.parseSettings(["Base_URL=x"]) }
    #expect(throws: CommandError.self) { try BackendSettingsRequest.parseSettings(["base_url"]) }
  }

  /// git runs the helper `accounts` as git-credential-accounts, a link to accounts, by any path.
  @Test func theProgramGitCredentialAccountsIsGitCredential() {
    #expect(AccountsCommandLine.commandArguments(["git-credential-accounts", "get"]) == ["git-credential", "get"])
    #expect(
      AccountsCommandLine.commandArguments(["/usr/bin/git-credential-accounts", "--erase-logs-out", "erase"])
        == ["git-credential", "--erase-logs-out", "erase"])
    #expect(AccountsCommandLine.commandArguments(["/usr/bin/accounts", "get"]) == ["get"])
    #expect(AccountsCommandLine.commandArguments(["/opt/git-credential-accounts/accounts", "list"]) == ["list"])
    #expect(AccountsCommandLine.commandArguments(["xgit-credential-accounts", "get"]) == ["get"])
  }

  /// `otp` is a group whose default subcommand takes words: `otp alice` is `otp code alice`,
  /// while a group whose default takes none (`backend`) still calls another word a mistake.
  @Test func aWordAfterOTPIsTheCodesAccount() throws {
    for arguments in [
      ["otp", "alice"], ["otp", "code", "alice"], ["otp", "alice", "--at", "59"], ["otp", "--at=59", "alice"],
    ] {
      let parsed = try #require(try parsedRun(arguments), "\(arguments)")
      #expect(parsed.path.name == "otp code", "\(arguments)")
      #expect(parsed.argument(SharedArguments.optionalAccount) == "alice", "\(arguments)")
    }
    let bare = try #require(try parsedRun(["otp", "--at", "59"]))
    #expect(bare.path.name == "otp code")
    #expect(bare.value(OTPCodeCommand.at) == "59")
    #expect(try parsedRun(["otp"])?.path.name == "otp code")
    #expect(try parsedRun(["otp", "set", "alice", "--remove"])?.path.name == "otp set")
  }

  @Test func otherGroupsStillRefuseAnUnknownWord() {
    #expect(throws: CommandError.self) { try parser.parse(["backend", "frob"]) }
    #expect(throws: CommandError.self) { try parser.parse(["otp", "alice", "bob"]) }
    #expect(throws: CommandError.self) { try parser.parse(["otp", "set"]) }
  }

  /// An unknown command or option is quoted as every other word is, at most 80 characters, so a
  /// word of 128 KiB (the most argv holds) makes no error line of 128 KiB.
  @Test func aLongUnknownWordIsQuotedInPart() {
    let word = String(repeating: "é", count: 7548)
    let quoted = String(repeating: "é", count: 80) + "…"
    #expect(message(["--", word]) == "unknown command '\(quoted)' for `accounts`")
    #expect(message([word]) == "unknown command '\(quoted)' for `accounts`")
    #expect(message(["backend", word]) == "unknown command '\(quoted)' for `accounts backend`")
    #expect(message(["--" + word]) == "unknown option '--\(quoted)' for `accounts`")
    let option = "-y" + String(repeating: "é", count: 78) + "…"
    #expect(message(["clear", "-y" + word]) == "unknown option '\(option)' for `accounts clear`")
  }

  /// A short hostile word is quoted whole: the one line of the error escapes what a terminal
  /// would act on either way.
  @Test func aShortUnknownWordIsQuotedWhole() {
    #expect(message(["lsit"]) == "unknown command 'lsit' for `accounts`")
    #expect(message(["--jsno"]) == "unknown option '--jsno' for `accounts`")
    #expect(message(["\u{1B}[2J"]) == "unknown command '\\u{1b}[2J' for `accounts`")
  }
}
