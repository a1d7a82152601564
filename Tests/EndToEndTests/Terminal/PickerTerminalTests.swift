import Foundation
import TestSupport
import Testing

/// `accounts switch` without USER: the picker on a real pseudo-terminal. The accounts have valid
/// sessions, so choosing one reuses it and the backend sees nothing.
@Suite(.serialized, .blocking) struct PickerTerminalTests {
  @Test func typingAFilterAndEnterSwitchesWithoutTheNetwork() throws {
    let world = try Fixture.threeToPickFrom()
    defer { world.close() }
    #expect(world.slot == "bob@corp")
    let run = try world.picker([("switch to> ", "ALI"), ("1/3", "\r")])
    #expect(run.status == 0, "\(run.result)")
    #expect(run.modesKept, "\(run.result)")
    #expect(
      run.result.standardOutput.contains("switched to alice@corp: its session is"), "\(run.result)")
    #expect(world.slot == "alice@corp")
    #expect(try world.backend.requests().isEmpty, "the valid session was reused")
  }

  @Test func arrowsAndControlKeysMoveWithinTheList() throws {
    let world = try Fixture.threeToPickFrom()
    defer { world.close() }
    // carol (never logged in) is last of the three. A filter that matches nothing and Enter on
    // it does nothing; Backspace brings the rows back; Up, Up at the top stay there (a wrap
    // would end elsewhere), Down, Ctrl-N reach carol, Down (application mode) stays, Ctrl-P,
    // Ctrl-N come back to her. Her password is asked for, as `switch carol` would.
    let run = try world.picker([
      ("switch to> ", "zq\r"),
      ("0/3", "\u{7F}\u{7F}\u{1B}[A\u{1B}[A\u{1B}[B\u{0E}\u{1B}OB\u{10}\u{0E}\r"),
      ("Password for carol@corp: ", "secret3\n"),
    ])
    #expect(run.status == 0, "\(run.result)")
    #expect(run.result.standardOutput.contains("no account matches 'zq'"), "\(run.result)")
    #expect(world.slot == "carol@corp", "\(run.result.standardOutput.debugDescription)")
  }

  @Test(arguments: [("Ctrl-C", "\u{03}"), ("Esc", "\u{1B}")])
  func cancellingLeavesTheTerminalAndTheSlotAlone(_ key: (String, String)) throws {
    let world = try Fixture.threeToPickFrom()
    defer { world.close() }
    let run = try world.picker([("switch to> ", "ali"), ("1/3", key.1)])
    #expect(run.status == 130, "\(key.0): \(run.result)")
    #expect(run.modesKept, "\(key.0): \(run.result)")
    #expect(run.result.standardOutput.contains("no account chosen"))
    #expect(world.slot == "bob@corp")
  }

  @Test func aSignalRestoresTheTerminal() throws {
    let world = try Fixture.threeToPickFrom()
    defer { world.close() }
    let run = try world.picker(prefix: "timeout --foreground -s TERM 2", [("switch to> ", "ali")])
    #expect(run.status == 124, "killed by SIGTERM: \(run.result)")
    #expect(run.modesKept, "\(run.result)")
    #expect(world.slot == "bob@corp")
  }

  @Test func ctrlZStopsWithTheTerminalRestoredAndFgResumesThePicker() throws {
    let world = try Fixture.threeToPickFrom()
    defer { world.close() }
    // A shell with job control: Ctrl-Z stops the picker and the shell gets the terminal back in
    // its own modes; `fg` resumes it, raw again, drawn afresh.
    let script = #"set -m; "$0" switch; echo "stopped $(stty -g)"; fg; echo "status $?""#
    let run = try runInTerminal(
      "/bin/bash", ["-c", script, PackagePaths.accounts], environment: world.sandbox.environment,
      steps: [("switch to> ", "\u{1A}"), ("stopped ", ""), ("switch to> ", "ali"), ("1/3", "\r")])
    #expect(run.status == 0, "\(run)")
    #expect(
      run.standardOutput.contains("stopped \(try world.modes())"),
      "the shell's modes while stopped: \(run)")
    #expect(run.standardOutput.contains("switched to alice@corp"), "\(run)")
    #expect(world.slot == "alice@corp")
  }

  @Test func loginExecAndLogoutPickWhenNothingNamesAnAccount() throws {
    let world = try Fixture.threeToPickFrom()
    defer { world.close() }
    let sandbox = world.sandbox
    // With a slot holder they act on it: no picker.
    let slotted = try sandbox.terminal(["logout"], [])
    #expect(slotted.status == 0, "\(slotted)")
    #expect(!slotted.standardOutput.contains("log out> "), "\(slotted)")
    #expect(world.slot == nil)

    let login = try sandbox.terminal(["login"], [("log in as> ", "ali"), ("1/3", "\r")])
    #expect(login.status == 0, "\(login)")
    #expect(login.standardOutput.contains("alice@corp"), "\(login)")
    let exec = try sandbox.terminal(
      ["exec", "--", "/bin/sh", "-c", "echo \"as $ACCOUNTS_ACCOUNT\""],
      [("run as> ", "ali"), ("1/3", "\r")])
    #expect(exec.status == 0, "\(exec)")
    #expect(exec.standardOutput.contains("as alice@corp"), "\(exec)")
    let logout = try sandbox.terminal(["logout"], [("log out> ", "ali"), ("1/3", "\r")])
    #expect(logout.status == 0, "\(logout)")
    let alice = try world.sandbox.json(["list", "--json"]) as? [[String: Any]]
    let token = alice?.first { $0["user"] as? String == "alice" }?["token"] as? [String: Any]
    #expect(token?["state"] as? String == "none", "alice logged out: \(logout)")
    let cancelled = try sandbox.terminal(["login"], [("log in as> ", "\u{03}")])
    #expect(cancelled.status == 130, "\(cancelled)")

    let piped = try world.sandbox.run(["logout"])
    #expect(piped.status == 2, "no terminal: the usage error, never a wait: \(piped)")
    #expect(piped.standardError.contains("no account given and the auto-login slot is empty"))
  }

  @Test func withoutATerminalUSERIsRequired() throws {
    let world = try Fixture.threeToPickFrom()
    defer { world.close() }
    let run = try world.sandbox.run(["switch"], stdin: "alice\n")
    #expect(run.status == 2, "\(run)")
    #expect(run.standardError.contains("`accounts switch` needs USER"))
    #expect(world.slot == "bob@corp")
    try world.sandbox.ok(["switch", "alice"])
    #expect(
      try world.sandbox.ok(["switch", "-"]).standardError.contains("switched to bob@corp"),
      "- still binds to USER")
    #expect(world.slot == "bob@corp")
  }
}

extension Fixture {
  /// alice and bob logged in (bob last), carol saved but never logged in, on corp (a session
  /// check); the slot holds bob, and the test backend has seen nothing yet.
  static func threeToPickFrom() throws -> Fixture {
    let world = try Fixture().serving().addingServedBackend("corp", settings: ["check_path=check"])
      .saving("alice", password: "123456").saving("bob", password: "hunter2").saving("carol")
    try world.sandbox.ok(["login", "alice"])
    try world.sandbox.ok(["switch", "bob"])
    try world.backend.control("log/clear")
    return world
  }

  /// The modes of a fresh terminal, as `stty -g` prints them.
  func modes() throws -> String {
    let run = try runInTerminal(
      "/bin/sh", ["-c", "stty -g"], environment: sandbox.environment, steps: [])
    return run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Runs `accounts switch` (after `prefix`) in a shell on the terminal, printing the terminal's modes
  /// (`stty -g`) before and after and the exit status.
  func picker(
    prefix: String = "", _ steps: [(expect: String, type: String)]
  ) throws -> (result: ProcessResult, status: Int?, modesKept: Bool) {
    let script =
      #"echo "before $(stty -g)"; \#(prefix) "$0" switch; echo "status $?"; echo "after $(stty -g)""#
    let result = try runInTerminal(
      "/bin/sh", ["-c", script, PackagePaths.accounts], environment: sandbox.environment,
      steps: steps)
    let lines = result.standardOutput.split(whereSeparator: \.isNewline).map(String.init)
    func value(_ key: String) -> String? {
      // The picker's erasing sequence may come first on the line.
      lines.compactMap { line in line.range(of: key + " ").map { String(line[$0.upperBound...]) }
      }.last
    }
    let before = value("before")
    return (
      result, value("status").flatMap { Int($0) }, before != nil && before == value("after")
    )
  }
}
