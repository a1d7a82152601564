import AccountsContract
import AccountsCore
import Testing

@testable import AccountsCLI
import AccountsSystem

/// The session commands of SPEC §3 and two more shapes, so the parser's binding rules are proved
/// on the layouts they are for.
enum Shapes {
  static let noop: CommandSpec.Handler = { _, _ in }
  static let method = ArgumentSpec.method(help: "an HTTP method")
  static let path = ArgumentSpec("PATH", help: "the API path")
  static let pairs = ArgumentSpec("KEY=VALUE", optional: true, variadic: true, help: "parameters")
  static let command = ArgumentSpec.trailingCommand(help: "the command to run")
  static let name = ArgumentSpec("NAME", help: "a name")
  static let words = ArgumentSpec("WORD", optional: true, variadic: true, help: "words")

  /// The session commands of SPEC §3 are the real ones of the table.
  static let request = RequestCommand.spec
  static let exec = ExecCommand.spec
  static let token = TokenCommand.spec
  /// `[USER] NAME`: an optional told apart by counting words alone.
  static let rename = CommandSpec(
    "rename", summary: "name an account", picksAccount: true, arguments: [name], handler: noop)
  /// `[WORD...] -- CMD...`: the separator alone ends the variadic.
  static let wrap = CommandSpec(
    "wrap", summary: "wrap a command", arguments: [words, command], handler: noop)

  /// `[WORD...] [-- CMD...]`: a command that also runs without a command to run (`lease`).
  static let maybeCommand = ArgumentSpec.trailingCommand(optional: true, help: "the command to run, if any")
  static let hold = CommandSpec(
    "hold", summary: "hold words, maybe run a command", arguments: [words, maybeCommand], handler: noop)

  static let all = [rename, wrap, hold]
}

@Suite struct ArgumentBindingTests {
  let parser = Parser(commands: CommandTable.all + Shapes.all, defaultCommand: "list")
  let user = SharedArguments.optionalAccount

  func invocation(_ arguments: [String]) throws -> Invocation {
    guard case .run(let invocation) = try parser.parse(arguments) else {
      Issue.record("\(arguments) did not parse to a command")
      throw CommandError.usage("not a command")
    }
    return invocation
  }

  func error(_ arguments: [String]) -> CommandError? {
    do {
      _ = try parser.parse(arguments)
      return nil
    } catch {
      return error
    }
  }

  @Test func requestTakesUSEROnlyWhenTheFirstWordIsNoMethod() throws {
    let post = try invocation(["request", "POST", "user/info", "remark=hello"])
    #expect(post.argument(user) == nil)
    #expect(post.argument(Shapes.method) == "POST")
    #expect(post.argument(Shapes.path) == "user/info")
    #expect(post.arguments(Shapes.pairs) == ["remark=hello"])

    let bob = try invocation(["request", "bob", "GET", "me"])
    #expect(bob.argument(user) == "bob")
    #expect(bob.argument(Shapes.method) == "GET")
    #expect(bob.argument(Shapes.path) == "me")
    #expect(bob.arguments(Shapes.pairs) == [])

    let noUser = try invocation(["request", "GET", "me"])
    #expect(noUser.argument(user) == nil)
    #expect(noUser.argument(Shapes.path) == "me")

    let pairs = try invocation(["request", "bob", "get", "me", "a=1", "b=2"])
    #expect(pairs.argument(user) == "bob")
    #expect(pairs.arguments(Shapes.pairs) == ["a=1", "b=2"])

    // A method word never fills USER, even when enough words follow for USER to be given.
    let methodFirst = try invocation(["request", "get", "post", "x=1"])
    #expect(methodFirst.argument(user) == nil)
    #expect(methodFirst.argument(Shapes.method) == "GET")
    #expect(methodFirst.argument(Shapes.path) == "post")

    let option = try invocation(["request", "--account", "bob", "DELETE", "me"])
    #expect(option.argument(user) == nil)
    #expect(option.value(SharedArguments.accountOption) == "bob")
  }

  @Test func methodWordsAreCaseInsensitiveASCIIAndBoundInUpperCase() throws {
    for word in ["get", "Head", "POST", "put", "pAtCh", "delete", "options"] {
      #expect(try invocation(["request", word, "me"]).argument(Shapes.method) == word.uppercased())
    }
    #expect(HTTPMethod.normalised("optıons") == nil, "a dotless i is no I")
    #expect(HTTPMethod.normalised("GETS") == nil)
    #expect(HTTPMethod.normalised("") == nil)
  }

  @Test func execBindsOnlyTheWordsAfterTheSeparatorToCMD() throws {
    let plain = try invocation(["exec", "--", "ls", "-l"])
    #expect(plain.argument(user) == nil, "ls is the command, not USER")
    #expect(plain.arguments(Shapes.command) == ["ls", "-l"])

    let bob = try invocation(["exec", "bob", "--", "ls", "-l", "--", "x"])
    #expect(bob.argument(user) == "bob")
    #expect(bob.arguments(Shapes.command) == ["ls", "-l", "--", "x"], "a second -- is CMD's")

    let option = try invocation(["exec", "--account", "bob", "--", "env", "--help"])
    #expect(option.value(SharedArguments.accountOption) == "bob")
    #expect(option.arguments(Shapes.command) == ["env", "--help"], "--help after -- is CMD's")

    #expect(try invocation(["exec", "--", "bob"]).argument(user) == nil)
    #expect(try invocation(["exec", "--", "bob"]).arguments(Shapes.command) == ["bob"])

    let wrapped = try invocation(["wrap", "a", "b", "--", "c"])
    #expect(wrapped.arguments(Shapes.words) == ["a", "b"])
    #expect(wrapped.arguments(Shapes.command) == ["c"])
  }

  @Test func anOptionalCommandIsAbsentWithoutTheSeparatorAndRequiredAfterIt() throws {
    let without = try invocation(["hold", "a", "b"])
    #expect(without.arguments(Shapes.words) == ["a", "b"])
    #expect(without.arguments(Shapes.maybeCommand).isEmpty)
    let with = try invocation(["hold", "a", "--", "c", "-x"])
    #expect(with.arguments(Shapes.words) == ["a"])
    #expect(with.arguments(Shapes.maybeCommand) == ["c", "-x"])
    #expect(try invocation(["hold"]).arguments(Shapes.maybeCommand).isEmpty)
    let dangling = error(["hold", "a", "--"])
    #expect(dangling?.status == .usage)
    #expect(dangling?.message == "`accounts hold` needs CMD after --")
    #expect(CommandPath(groups: [], command: Shapes.hold).usage.hasSuffix("[WORD...] [-- CMD...]"))
    #expect(Shapes.hold.layoutProblems.isEmpty)
  }

  @Test func anOptionalIsFilledOnlyWhenMoreWordsRemainThanTheRestNeed() throws {
    #expect(try invocation(["token"]).argument(user) == nil)
    #expect(try invocation(["token", "bob", "--check"]).argument(user) == "bob")
    #expect(try invocation(["rename", "x"]).argument(user) == nil)
    #expect(try invocation(["rename", "x"]).argument(Shapes.name) == "x")
    #expect(try invocation(["rename", "bob", "x"]).argument(user) == "bob")
    #expect(try invocation(["rename", "bob", "x"]).argument(Shapes.name) == "x")
  }

  @Test func withoutCMDTheSeparatorOnlyEndsTheOptions() throws {
    #expect(
      try invocation(["remove", "--", "-odd-name"]).argument(RemoveCommand.user) == "-odd-name")
    #expect(try invocation(["token", "--", "-bob"]).argument(user) == "-bob")
    #expect(try invocation(["rename", "--", "-bob", "-x"]).argument(Shapes.name) == "-x")
  }

  @Test func mistakesInTheseShapesAreUsageErrorsWithAFix() throws {
    let request = "usage: " + CommandPath(groups: [], command: Shapes.request).usage
    let putSeparator =
      "put -- before the command (usage: " + CommandPath(groups: [], command: Shapes.exec).usage + ")"
    let methods = "(GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS)"
    let cases: [([String], String, String)] = [
      (["request", "FOO", "me"], "'FOO' is not an HTTP method \(methods)", request),
      (["request", "bob", "FETCH", "me"], "'FETCH' is not an HTTP method \(methods)", request),
      (["request", "optıons", "me"], "'optıons' is not an HTTP method \(methods)", request),
      (["request", "GET"], "`accounts request` needs PATH", request),
      (["request"], "`accounts request` needs METHOD", request),
      (["exec"], "`accounts exec` needs CMD after --", putSeparator),
      (["exec", "ls"], "`accounts exec` needs CMD after --", putSeparator),
      (["exec", "bob", "ls"], "unexpected argument 'ls' for `accounts exec`", putSeparator),
      (["exec", "bob", "ls", "-l"], "unknown option '-l' for `accounts exec`", putSeparator),
      (["exec", "bob", "ls", "--all"], "unknown option '--all' for `accounts exec`", putSeparator),
      (
        ["exec", "bob", "--"], "`accounts exec` needs CMD after --",
        "usage: " + CommandPath(groups: [], command: Shapes.exec).usage
      ),
      (
        // token logs in when it must: the word may be a password, so it is not repeated
        ["token", "a", "b"],
        "`accounts token` takes one account; a password is read from stdin or a prompt, never from the command line",
        "usage: " + CommandPath(groups: [], command: Shapes.token).usage
      ),
      (
        ["token", "--acount", "b"], "unknown option '--acount' for `accounts token`",
        "did you mean '--account'?"
      ),
      (["token", "-l"], "unknown option '-l' for `accounts token`", "see `accounts token --help`"),
    ]
    for (arguments, message, fix) in cases {
      let error = error(arguments)
      #expect(error?.status == .usage, "\(arguments)")
      #expect(error?.message == message, "\(arguments)")
      #expect(error?.fix == fix, "\(arguments)")
    }
  }

  @Test func picksAccountAddsUSERFirstAndTheAccountOptionLast() {
    #expect(Shapes.request.arguments.map(\.name) == ["USER", "METHOD", "PATH", "KEY=VALUE"])
    #expect(Shapes.token.options.map(\.long).first == "check" && Shapes.token.options.map(\.long).last == "account")
    #expect(SharedArguments.accountOption.completion == .account)
    #expect(SharedArguments.optionalAccount.completion == .account)
  }
}
