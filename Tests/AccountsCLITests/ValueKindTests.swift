import AccountsContract
import AccountsCore
import AccountsSystem
import Testing

@testable import AccountsCLI

/// Every value of a shared option, checked once by its kind before any command runs: numbers,
/// durations, seconds, tags and settings, each a usage error (exit 2) naming the fix.
@Suite struct ValueKindTests {
  let parser = Parser(commands: CommandTable.all, defaultCommand: "list")

  func invocation(_ words: [String]) throws -> Invocation {
    guard case .run(let invocation) = try parser.parse(words) else {
      Issue.record("\(words) did not parse to a command")
      throw CommandError.usage("not a command")
    }
    return invocation
  }

  /// The usage error checking `words` gives.
  func refusal(_ words: [String]) throws -> CommandError {
    try #require(throws: CommandError.self) { try invocation(words).checkValues() }
  }

  @Test func theJobsBoundsAreAcceptedAndReadAsNumbers() throws {
    for (words, expected) in [(["status", "--jobs", "1"], 1), (["status", "-j", "64"], 64), (["login", "--stale", "--jobs", "8"], 8)] {
      let parsed = try invocation(words)
      try parsed.checkValues()
      #expect(parsed.number(words.first == "status" ? StatusCommand.jobs : LoginStale.jobs) == expected)
    }
    #expect(try invocation(["status"]).number(StatusCommand.jobs) == nil, "not given: the command's default")
  }

  @Test(arguments: ["0", "65", "eight", "4.5", ""]) func jobsOutOfBoundsAreAUsageError(_ text: String) throws {
    let error = try refusal(["status", "--jobs", text])
    #expect(error.status == .usage && error.status.rawValue == 2)
    #expect(error.message == "--jobs '\(text)' is not a number from 1 to 64")
    #expect(error.fix == "e.g. --jobs 8")
  }

  @Test func durationsAreReadInMillisecondsAndRefusedNamingTheirForms() throws {
    let lease = try invocation(["lease", "qa1", "--wait", "1m30s", "--ttl", "500ms", "--", "true"])
    try lease.checkValues()
    #expect(lease.milliseconds(LeaseCommand.wait) == 90_000 && lease.milliseconds(LeaseCommand.ttl) == 500)
    let wait = try refusal(["lease", "qa1", "--wait", "1d", "--", "true"])
    #expect(wait.message == "--wait 1d is not a duration")
    #expect(wait.fix == "write it as 0, 500ms, 30s, 10m, 1h or 1h30m (at most 366 days)")
    let check = try refusal(["exec", "--refresh", "--refresh-check", "often", "--", "true"])
    #expect(check.fix == "write it as 1s, 30s, 10m or 1h (at most 366 days)")
    #expect(try refusal(["login", "--stale", "--within", "soon"]).message == "--within soon is not a duration")
  }

  @Test func secondsAreMoreThanZeroAndAtMostAnHour() throws {
    #expect(try invocation(["token", "--timeout", "2.5"]).seconds(SessionArguments.timeout) == 2.5)
    for text in ["0", "3601", "-1", "soon"] {
      let error = try refusal(["token", "--timeout", text])
      #expect(error.message == "--timeout '\(text)' is not a number of seconds")
      #expect(error.fix == "give a number between 0 and 3600, e.g. --timeout 10")
    }
  }

  /// A tag is checked wherever it is taken: an option of four commands, the words of two.
  @Test func tagsAreCheckedAsOptionsAndAsWords() throws {
    for words in [
      ["list", "--tag", "qa", "--tag", "-x"], ["export", "--tag", "a b"], ["lease", "--tag", "", "--", "true"],
      ["login", "--stale", "--tag", "ü"], ["import", "-", "--tag", "-"], ["tag", "alice", "qa", "-x"], ["untag", "alice", "-x"],
    ] {
      #expect(try refusal(words).status == .usage, "\(words)")
    }
    try invocation(["list", "--tag", "qa", "--tag", "smoke.1"]).checkValues()
  }

  @Test func settingsAreKeyValueWordsOnceEach() throws {
    let add = try invocation(["backend", "add", "corp", "--adapter", "plain", "--set", "base_url=https://x", "--set", "a="])
    try add.checkValues()
    #expect(add.settings(BackendAddCommand.set) == ["base_url": "https://x", "a": ""])
    #expect(try refusal(["backend", "add", "corp", "--adapter", "plain", "--set", "nope"]).message == "--set 'nope' is not KEY=VALUE")
    #expect(try refusal(["backend", "set", "corp", "a=1", "a=2"]).message == "a is given twice")
    let set = try invocation(["backend", "set", "corp", "check_path=me"])
    #expect(set.settings(BackendSetCommand.settings) == ["check_path": "me"])
  }

  @Test func otherNumbersNameTheirOwnBounds() throws {
    let count = try refusal(["lease", "qa1", "--count", "0", "--", "true"])
    #expect(count.message == "--count '0' is not a number from 1 to 1000" && count.fix == "e.g. --count 4")
    let hook = try refusal(["hook", "add", "switch", "true", "--timeout", "0"])
    #expect(hook.message.hasPrefix("--timeout '0' is not a number from 1 to "), "\(hook.message)")
  }
}
