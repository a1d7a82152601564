import Foundation
import TestSupport
import Testing

/// An adapter runs in the command's process (a child per call would cost too much on the
/// `request` path), so what it does there is contained in process: a crash or an exit() inside
/// adapter code is a failed adapter (exit 9, one line, nothing stored), what it prints never
/// reaches the command's stdout, and what it writes on stderr reaches it only made visible.
/// None of these modes sends anything: they need no backend.
@Suite(.blocking) struct AdapterMisbehaviourTests {
  /// Nothing of alice@h anywhere: no token in the index, no item in the keyring.
  func expectNothingStored(_ sandbox: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let accounts = try sandbox.indexJSON()["accounts"] as? [[String: Any]] ?? []
    #expect(!accounts.contains { $0["token"] != nil }, "\(accounts)", sourceLocation: sourceLocation)
    #expect(try sandbox.allKeyringItems().isEmpty, sourceLocation: sourceLocation)
    #expect(try sandbox.invariantViolations().isEmpty, sourceLocation: sourceLocation)
  }

  /// exit() inside a login, on the adapter's own call or on a thread it started itself while
  /// its call runs: the adapter's either way.
  @Test(arguments: ["MODE_EXIT_IN_LOGIN", "MODE_EXIT_ON_THREAD"])
  func anExitInsideALoginIsAFailedAdapter(mode: String) throws {
    let world = try Fixture.hostileAdapter(mode, name: "quits")
    defer { world.close() }
    let sandbox = world.sandbox
    let login = try sandbox.run(["login", "alice@h", "--password-stdin"], stdin: "pw\n")
    #expect(login.status == 9, "\(login)")
    #expect(login.standardOutput.isEmpty, "\(login)")
    #expect(login.standardError == "accounts: adapter quits called exit(0) during login; nothing was stored\n", "\(login)")
    try expectNothingStored(sandbox)
  }

  /// A stack overflow too: the handler runs on a stack of its own.
  @Test(arguments: [("MODE_SEGV_IN_LOGIN", "SIGSEGV"), ("MODE_ABORT_IN_LOGIN", "SIGABRT"), ("MODE_RECURSE_IN_LOGIN", "SIGSEGV")])
  func aCrashInsideALoginIsAFailedAdapter(mode: String, signal: String) throws {
    let world = try Fixture.hostileAdapter(mode, name: "crashes")
    defer { world.close() }
    let sandbox = world.sandbox
    let login = try sandbox.run(["login", "alice@h", "--password-stdin"], stdin: "pw\n")
    #expect(login.status == 9, "\(login)")
    #expect(login.standardOutput.isEmpty, "\(login)")
    #expect(login.standardError == "accounts: adapter crashes crashed (\(signal)) during login; nothing was stored\n", "\(login)")
    try expectNothingStored(sandbox)
  }

  /// Any operation: a check, on the threads of `status --jobs`, or alone.
  @Test func aCrashInsideACheckIsAFailedAdapter() throws {
    let world = try Fixture.hostileAdapter("MODE_SEGV_IN_CHECK", name: "checker")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice@h", "--password-stdin"], stdin: "pw\n")
    let message = "accounts: adapter checker crashed (SIGSEGV) while checking the session\n"
    for command in [["status", "--jobs", "8"], ["token", "alice@h", "--check"]] {
      let result = try sandbox.run(command)
      #expect(result.status == 9, "\(command): \(result)")
      #expect(result.standardOutput.isEmpty && result.standardError == message, "\(command): \(result)")
    }
  }

  /// Telling the backend is best effort (SPEC §4): a crash in the adapter's LOGOUT ends the
  /// process (exit 9), but the session here is over already: token and slot gone, and the
  /// next logout has nothing to tell.
  @Test func aCrashInsideALogoutStillLogsOutHere() throws {
    let world = try Fixture.hostileAdapter("MODE_SEGV_IN_LOGOUT", name: "crashes")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice@h", "--auto", "--password-stdin"], stdin: "pw\n")
    let logout = try sandbox.run(["logout", "alice@h"])
    #expect(logout.status == 9, "\(logout)")
    #expect(logout.standardError.contains("adapter crashes crashed (SIGSEGV)"), "\(logout)")
    let index = try sandbox.indexJSON()
    let accounts = index["accounts"] as? [[String: Any]] ?? []
    #expect(accounts.count == 1 && accounts.allSatisfy { $0["token"] == nil || $0["token"] is NSNull }, "\(index)")
    #expect(index["auto_login"] is NSNull, "the slot is empty: \(index)")
    #expect(try sandbox.allKeyringItems().isEmpty)
    #expect(try sandbox.invariantViolations().isEmpty)
    #expect(try sandbox.run(["current"]).status == 3, "no slot holder")
    let again = try sandbox.run(["logout", "alice@h"])
    #expect(again.status == 0, "\(again)")
    #expect(try sandbox.run(["token", "alice@h"]).status == 3)
  }

  @Test func whatAnAdapterPrintsNeverReachesStdout() throws {
    let world = try Fixture.hostileAdapter("MODE_PRINTF_IN_LOGIN", name: "printer")
    defer { world.close() }
    let sandbox = world.sandbox
    let login = try sandbox.run(["login", "alice@h", "--password-stdin"], stdin: "pw\n")
    #expect(login.status == 0, "\(login)")
    #expect(!login.standardOutput.contains("INJECTED") && !login.standardError.contains("INJECTED"), "\(login)")
    let token = try sandbox.run(["token", "alice@h", "--check"])
    #expect(token.status == 0, "\(token)")
    #expect(token.standardOutput == "hostile-token\n", "\(token)")
    let env = try sandbox.run(["env", "alice@h", "--shell", "bash"])
    #expect(env.status == 0, "\(env)")
    #expect(!env.standardOutput.contains("INJECTED"), "\(env)")
    // A program that replaces the command (after a login through the adapter) gets its stdout
    // and stderr back.
    try sandbox.ok(["logout", "alice@h"])
    let exec = try sandbox.run(
      ["exec", "alice@h", "--password-stdin", "--", "/bin/sh", "-c", "echo child-out; echo child-err >&2"], stdin: "pw\n")
    #expect(exec.status == 0, "\(exec)")
    #expect(exec.standardOutput == "child-out\n" && exec.standardError == "child-err\n", "\(exec)")
    // Rows printed while adapters run on other threads.
    let status = try sandbox.run(["status", "--jobs", "8"])
    #expect(!status.standardOutput.contains("INJECTED") && status.standardOutput.contains("alice"), "\(status)")
  }

  /// What an adapter left in stdio's buffer is not flushed onto the command's stdout by the
  /// exit of an `exec` or `shell` whose program cannot start.
  @Test func aProgramThatCannotStartGetsNoAdapterOutputOnStdout() throws {
    let world = try Fixture.hostileAdapter("MODE_PRINTF_IN_LOGIN", name: "printer")
    defer { world.close() }
    let sandbox = world.sandbox
    try sandbox.ok(["login", "alice@h", "--remember", "--password-stdin"], stdin: "pw\n")
    try sandbox.ok(["logout", "alice@h"])
    let exec = try sandbox.run(["exec", "alice@h", "--", "/nonexistent/program"])
    #expect(exec.status == 127, "\(exec)")
    #expect(exec.standardOutput.isEmpty && !exec.standardError.contains("INJECTED"), "\(exec)")
    try sandbox.ok(["logout", "alice@h"])
    let shell = try sandbox.run(["shell", "alice@h"], environment: ["SHELL": "/nonexistent/shell"])
    #expect(shell.status == 1, "\(shell)")
    #expect(shell.standardOutput.isEmpty && !shell.standardError.contains("INJECTED"), "\(shell)")
  }

  @Test func whatAnAdapterWritesOnStderrIsMadeVisible() throws {
    let world = try Fixture.hostileAdapter("MODE_ESCAPE_ON_STDERR", name: "escapes")
    defer { world.close() }
    let sandbox = world.sandbox
    let login = try sandbox.run(["login", "alice@h", "--password-stdin"], stdin: "pw\n")
    #expect(login.status == 0, "\(login)")
    #expect(!login.standardError.contains("\u{1b}") && !login.standardError.contains("\u{7}"), "\(login)")
    #expect(login.standardError.contains("\\u{1b}[31mred text"), "\(login)")
    #expect(login.standardOutput.isEmpty, "\(login)")
    let token = try sandbox.run(["token", "alice@h", "--check"])
    #expect(token.standardOutput == "hostile-token\n", "\(token)")
    #expect(!token.standardError.contains("\u{1b}"), "\(token)")
    // What it logs through the host (ACCOUNTS_DEBUG) is the host's line, on the command's stderr.
    let debug = try sandbox.run(["token", "alice@h", "--check"], environment: ["ACCOUNTS_DEBUG": "1"])
    let logged = "accounts: adapter info: logged \\u{1b}[31mthrough the host\n"
    #expect(debug.standardError.contains(logged) && !debug.standardError.contains("adapter: " + logged), "\(debug)")
  }
}

extension Fixture {
  /// The hostile C adapter in `mode` as adapter `name`, and backend h on it.
  static func hostileAdapter(_ mode: String, name: String) throws -> Fixture {
    let world = try Fixture()
    try CAdapterCompiler.hostile(mode, name: name, into: try world.sandbox.userAdapterDirectory())
    return try world.addingBackend("h", adapter: name, settings: [])
  }
}
