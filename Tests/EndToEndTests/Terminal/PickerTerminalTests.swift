import Foundation
import TestSupport
import Testing

/// `accounts switch` without USER: the picker on a real pseudo-terminal. The accounts have valid
/// sessions, so choosing one reuses it and the backend sees nothing.
@Suite(.serialized, .blocking) struct PickerTerminalTests {
  final class World {
    let sandbox: Sandbox
    let backend: TestBackend

    /// alice and bob logged in (bob last), carol saved but never logged in; the slot holds bob.
    init() throws {
      sandbox = try Sandbox()
      backend = try TestBackend()
      try sandbox.ok([
        "backend", "add", "corp", "--adapter", "plain", "--set",
        "base_url=\(backend.url)/plain/plain",
        "--set", "allow_insecure_transport=true", "--set", "check_path=check",
      ])
      try sandbox.ok(["add", "alice", "--remember", "--password-stdin"], stdin: "123456\n")
      try sandbox.ok(["add", "bob", "--remember", "--password-stdin"], stdin: "hunter2\n")
      try sandbox.ok(["add", "carol"])
      try sandbox.ok(["login", "alice"])
      try sandbox.ok(["switch", "bob"])
      try backend.control("log/clear")
    }

    func close() {
      backend.stop()
      sandbox.close()
    }

    /// The modes of a fresh terminal, as `stty -g` prints them.
    func modes() throws -> String {
      let run = try runInTerminal(
        "/bin/sh", ["-c", "stty -g"], environment: sandbox.environment, steps: [])
      return run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    var slot: String? { (try? sandbox.indexJSON())?["auto_login"] as? String }

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

  @Test func typingAFilterAndEnterSwitchesWithoutTheNetwork() throws {
    let world = try World()
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
    let world = try World()
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
    let world = try World()
    defer { world.close() }
    let run = try world.picker([("switch to> ", "ali"), ("1/3", key.1)])
    #expect(run.status == 130, "\(key.0): \(run.result)")
    #expect(run.modesKept, "\(key.0): \(run.result)")
    #expect(run.result.standardOutput.contains("no account chosen"))
    #expect(world.slot == "bob@corp")
  }

  @Test func aSignalRestoresTheTerminal() throws {
    let world = try World()
    defer { world.close() }
    let run = try world.picker(prefix: "timeout --foreground -s TERM 2", [("switch to> ", "ali")])
    #expect(run.status == 124, "killed by SIGTERM: \(run.result)")
    #expect(run.modesKept, "\(run.result)")
    #expect(world.slot == "bob@corp")
  }

  @Test func ctrlZStopsWithTheTerminalRestoredAndFgResumesThePicker() throws {
    let world = try World()
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
    let world = try World()
    defer { world.close() }
    func terminal(_ arguments: [String], _ steps: [(expect: String, type: String)]) throws
      -> ProcessResult
    {
      try runInTerminal(
        PackagePaths.accounts, arguments, environment: world.sandbox.environment, steps: steps)
    }
    // With a slot holder they act on it, as before: no picker.
    let slotted = try terminal(["logout"], [])
    #expect(slotted.status == 0, "\(slotted)")
    #expect(!slotted.standardOutput.contains("log out> "), "\(slotted)")
    #expect(world.slot == nil)

    let login = try terminal(["login"], [("log in as> ", "ali"), ("1/3", "\r")])
    #expect(login.status == 0, "\(login)")
    #expect(login.standardOutput.contains("alice@corp"), "\(login)")
    let exec = try terminal(
      ["exec", "--", "/bin/sh", "-c", "echo \"as $ACCOUNTS_ACCOUNT\""],
      [("run as> ", "ali"), ("1/3", "\r")])
    #expect(exec.status == 0, "\(exec)")
    #expect(exec.standardOutput.contains("as alice@corp"), "\(exec)")
    let logout = try terminal(["logout"], [("log out> ", "ali"), ("1/3", "\r")])
    #expect(logout.status == 0, "\(logout)")
    let alice = try world.sandbox.json(["list", "--json"]) as? [[String: Any]]
    let token = alice?.first { $0["user"] as? String == "alice" }?["token"] as? [String: Any]
    #expect(token?["state"] as? String == "none", "alice logged out: \(logout)")
    let cancelled = try terminal(["login"], [("log in as> ", "\u{03}")])
    #expect(cancelled.status == 130, "\(cancelled)")

    let piped = try world.sandbox.run(["logout"])
    #expect(piped.status == 2, "no terminal: the usage error, never a wait: \(piped)")
    #expect(piped.standardError.contains("no account given and the auto-login slot is empty"))
  }

  @Test func withoutATerminalUSERIsRequired() throws {
    let world = try World()
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
