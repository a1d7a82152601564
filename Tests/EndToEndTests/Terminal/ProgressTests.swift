import Foundation
import Synchronization
import TestSupport
import Testing

/// Slow work on a terminal says so: `status` prints each row as its check ends, under a
/// `checking N/M` line on stderr that is erased at the end; a command waiting for its backend
/// says `waiting for corp…`; a long `import` says how far it is. Off a terminal, none of it.
@Suite(.blocking) struct ProgressTests {
  /// Erases the line the cursor is on.
  static let erase = "\r\u{1B}[K"

  /// alice@slow (first in the table) checks against an endpoint that never answers; bob@corp
  /// answers at once and carol@corp has no session.
  func statusWorld() throws -> Fixture {
    let world = try Fixture.corpAndSlow()
    try world.sandbox.ok(["login", "alice@slow", "--password-stdin"], stdin: "123456\n")
    try world.sandbox.ok(["login", "bob@corp", "--password-stdin"], stdin: "hunter2\n")
    try world.sandbox.ok(["add", "carol@corp"])
    try world.sandbox.ok(["backend", "set", "slow", "base_url=\(world.backend.url)/hostile/slow"])
    return world
  }

  @Test func statusOnATerminalPrintsEachRowAsItsCheckEnds() throws {
    let world = try statusWorld()
    defer { world.close() }
    let run = try world.sandbox.terminal(["status", "--timeout", "4"], timeout: 60)
    let shown = run.standardOutput
    #expect(run.status == 8, "alice@slow's backend did not answer: \(shown)")
    let fast = try #require(shown.range(of: "bob@corp"), "\(shown)")
    let slow = try #require(shown.range(of: "alice@slow"), "\(shown)")
    #expect(fast.lowerBound < slow.lowerBound, "the fast row before the slow one: \(shown)")
    #expect(shown.contains("carol@corp"), "\(shown)")
    #expect(shown.range(of: "checking 2/3")?.lowerBound ?? slow.lowerBound < slow.lowerBound, "\(shown)")
    // Every progress line is erased before anything else is written after it, and the last
    // one is erased for good before the error.
    let lines = shown.components(separatedBy: "checking ").dropFirst()
    #expect(!lines.isEmpty, "\(shown)")
    for line in lines {
      let rest = line.drop { $0.isNumber || $0 == "/" }
      #expect(rest.hasPrefix(Self.erase), "\(line.debugDescription) in \(shown.debugDescription)")
    }
    let end = try #require(shown.range(of: "checking 3/3" + Self.erase, options: .backwards), "\(shown)")
    #expect(shown[end.upperBound...].hasPrefix("accounts: 1 of 2 sessions could not be confirmed"), "\(shown)")
    // The columns line up although the rows came one by one.
    let rows = shown.replacingOccurrences(of: Self.erase, with: "\n").components(separatedBy: "\n")
    let header = try #require(rows.first { $0.hasPrefix("ACCOUNT") }, "\(shown)")
    let bob = try #require(rows.first { $0.hasPrefix("bob@corp") }, "\(shown)")
    let column = { (text: String, word: String) in text.range(of: word).map { text.distance(from: text.startIndex, to: $0.lowerBound) } }
    #expect(column(header, "SESSION") != nil && column(header, "SESSION") == column(bob, "valid"), "\(rows)")
  }

  @Test func statusOffATerminalIsUnchanged() throws {
    let world = try statusWorld()
    defer { world.close() }
    let run = try world.sandbox.run(["status", "--timeout", "4"])
    #expect(run.status == 8, "\(run)")
    #expect(!run.standardError.contains("checking") && !run.standardError.contains("\u{1B}"), "\(run)")
    let lines = run.standardOutput.split(separator: "\n").map(String.init)
    #expect(lines.map { String($0.prefix { $0 != " " }) } == ["ACCOUNT", "alice@slow", "bob@corp", "carol@corp"], "\(run)")
  }

  /// `--json-lines`: the objects of `--json`, one per line, in the order the checks end, also
  /// into a pipe.
  @Test func statusJSONLinesStreamsAnObjectAsEachCheckEnds() throws {
    let world = try statusWorld()
    defer { world.close() }
    let run = try world.sandbox.run(["status", "--timeout", "4", "--json-lines"])
    #expect(run.status == 8, "\(run)")
    let objects = try run.standardOutput.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
    }
    #expect(objects.count == 3 && objects.last?["account"] as? String == "alice@slow", "the slow one last: \(run)")
    #expect(objects.last?["outcome"] as? String == "backend_error", "\(run)")
    #expect(objects.allSatisfy { Set($0.keys) == ["account", "backend", "outcome", "expires_at", "message"] }, "\(run)")
    let both = try world.sandbox.run(["status", "--json", "--json-lines"])
    #expect(both.status == 2 && both.standardOutput.isEmpty, "\(both)")
    #expect(both.standardError.hasPrefix("accounts: --json and --json-lines"), "\(both)")
  }

  @Test func aLoginWaitingForItsBackendSaysSoOnATerminal() throws {
    let world = try Fixture.corpAndSlow()
    defer { world.close() }
    try world.sandbox.ok(["add", "alice@corp", "--remember", "--password-stdin"], stdin: "123456\n")
    let quick = try world.sandbox.terminal(["login", "alice@corp"], timeout: 60)
    #expect(quick.status == 0 && !quick.standardOutput.contains("waiting for"), "\(quick)")
    try world.backend.delay(seconds: 2.5)
    for command in [["login", "alice@corp"], ["request", "alice@corp", "GET", "me"]] {
      let slow = try world.sandbox.terminal(command, timeout: 60)
      #expect(slow.status == 0, "\(command): \(slow)")
      let waited = try #require(slow.standardOutput.range(of: "waiting for corp…"), "\(command): \(slow)")
      #expect(slow.standardOutput[waited.upperBound...].hasPrefix(Self.erase), "erased when the answer came: \(slow)")
    }
    let piped = try world.sandbox.run(["login", "alice@corp"])
    #expect(piped.status == 0, "\(piped)")
    #expect(!piped.standardError.contains("waiting") && !piped.standardError.contains("\u{1B}"), "\(piped)")
  }

  /// `login --stale` on a terminal: each account's line as its login ends (old@brief's while
  /// qa1@corp's server is stopped), under a "logging in N/M" line erased before each line and
  /// at the end.
  @Test func loginStaleOnATerminalPrintsEachLineAsItsLoginEndsUnderItsProgress() throws {
    let world = try Fixture.stalePool()
    defer { world.close() }
    world.backend.pause()
    defer { world.backend.resume() }
    let finished = DispatchSemaphore(value: 0)
    let run = Mutex<Result<ProcessResult, any Error>?>(nil)
    let sandbox = world.sandbox  // Sendable, as the world is not
    DispatchQueue.global().async {
      let result = Result { try sandbox.terminal(["login", "--stale", "qa1", "old", "--timeout", "20"], timeout: 60) }
      run.withLock { $0 = result }
      finished.signal()
    }
    // old@brief's login is in the index (its session lasts a second: its last login tells)
    // while qa1@corp's login waits; its line goes out next, long before qa1's login can end.
    let loggedIn = waitUntil(seconds: 30) {
      let listed = (try? world.sandbox.json(["list", "--json"])) as? [[String: Any]] ?? []
      return listed.contains { $0["account"] as? String == "old@brief" && $0["last_login"] is String }
    }
    #expect(loggedIn)
    world.backend.resume()
    finished.wait()
    let result = try #require(try run.withLock { $0 }?.get())
    let shown = result.standardOutput
    #expect(result.status == 0, "\(shown)")
    let old = try #require(shown.range(of: "old@brief: logged in until"), "\(shown)")
    let qa1 = try #require(shown.range(of: "qa1@corp: logged in until"), "\(shown)")
    #expect(old.lowerBound < qa1.lowerBound, "old's line before qa1's, though qa1 comes first: \(shown)")
    #expect(shown[..<old.lowerBound].hasSuffix("logging in 0/2" + Self.erase), "\(shown.debugDescription)")
    #expect(shown[..<qa1.lowerBound].hasSuffix("logging in 1/2" + Self.erase), "\(shown.debugDescription)")
    let end = try #require(shown.range(of: "logging in 2/2" + Self.erase, options: .backwards), "\(shown.debugDescription)")
    #expect(shown[end.upperBound...].hasPrefix("logged in 2, fresh 0, skipped 0, failed 0"), "\(shown.debugDescription)")
  }

  /// A terminal whose TERM is dumb or empty cannot redraw a line: no command shows progress
  /// there, while the rows and lines themselves still come.
  @Test func noProgressLineWhenTERMIsDumbOrEmpty() throws {
    let world = try statusWorld()
    defer { world.close() }
    for term in ["dumb", ""] {
      let status = try world.sandbox.terminal(["status", "--timeout", "4"], timeout: 60, environment: ["TERM": term])
      #expect(status.status == 8 && status.standardOutput.contains("bob@corp"), "TERM=\(term): \(status)")
      #expect(!status.standardOutput.contains("checking") && !status.standardOutput.contains("\u{1B}"), "TERM=\(term): \(status)")
      let stale = try world.sandbox.terminal(["login", "--stale", "carol"], timeout: 60, environment: ["TERM": term])
      #expect(stale.status == 0 && stale.standardOutput.contains("carol@corp: skipped"), "TERM=\(term): \(stale)")
      #expect(!stale.standardOutput.contains("logging in") && !stale.standardOutput.contains("\u{1B}"), "TERM=\(term): \(stale)")
    }
    try world.backend.delay(seconds: 2.5)
    let slow = try world.sandbox.terminal(["request", "bob@corp", "GET", "me"], timeout: 60, environment: ["TERM": "dumb"])
    #expect(slow.status == 0 && !slow.standardOutput.contains("waiting for"), "\(slow)")
  }

  /// `--quiet` keeps stderr to what went wrong: no progress line and no "waiting for" notice
  /// on a terminal either, while the failed account's line still comes.
  @Test func quietDrawsNoProgressOnATerminal() throws {
    let world = try statusWorld()
    defer { world.close() }
    let status = try world.sandbox.terminal(["-q", "status", "--timeout", "4"], timeout: 60)
    #expect(status.status == 8 && status.standardOutput.contains("bob@corp"), "\(status)")
    #expect(!status.standardOutput.contains("checking"), "\(status)")
    try world.backend.delay(seconds: 2.5)
    let slow = try world.sandbox.terminal(["--quiet", "request", "bob@corp", "GET", "me"], timeout: 60)
    #expect(slow.status == 0 && !slow.standardOutput.contains("waiting for"), "\(slow)")
    let loud = try world.sandbox.terminal(["request", "bob@corp", "GET", "me"], timeout: 60)
    #expect(loud.status == 0 && loud.standardOutput.contains("waiting for"), "without --quiet it is said: \(loud)")
  }

  /// An import file of `count` accounts on corp.
  static func importRows(_ count: Int) -> String {
    "account,password,backend,tags,otp\n" + (0..<count).map { "user\($0),pw-\($0),corp,pool,\n" }.joined()
  }

  /// `import` tells its progress on a terminal when it takes more than a second, and clears the
  /// line at the end; never when stderr is no terminal.
  @Test func onATerminalALongImportSaysHowFarItIsAndClearsTheLine() throws {
    let world = try Fixture().addingBackend("corp")
    defer { world.close() }
    let sandbox = world.sandbox
    let file = sandbox.keyring.root + "/pool.csv"
    // 200 rows: seconds on gnome-keyring, which rewrites its file on every store.
    try Self.importRows(200).write(toFile: file, atomically: true, encoding: .utf8)
    let shown = try sandbox.terminal(["import", file], timeout: 120)
    #expect(shown.status == 0, "\(shown)")
    #expect(shown.standardOutput.contains("\rimporting "), "\(shown.standardOutput.suffix(300))")
    #expect(shown.standardOutput.contains(" of 200"), "\(shown.standardOutput.suffix(300))")
    #expect(shown.standardOutput.contains("\r\u{1B}[K"), "the line is cleared at the end")
    #expect(shown.standardOutput.contains("imported 200, updated 0, skipped 0, failed 0"))
    #expect(!shown.standardOutput.contains("pw-1"), "no password on the terminal")
    try sandbox.ok(["remove", "user0"])
    let piped = try sandbox.run(["import", file])
    #expect(piped.status == 0, "\(piped)")
    #expect(!piped.standardError.contains("importing"), "no progress off a terminal: \(piped.standardError)")
  }
}

extension Fixture {
  /// Backends corp and slow, both on the test backend's form login, with a session check.
  static func corpAndSlow() throws -> Fixture {
    try Fixture().serving().addingServedBackend("corp", settings: ["check_path=check"])
      .addingServedBackend("slow", settings: ["check_path=check"])
  }
}
