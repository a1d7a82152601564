import Foundation
import TestSupport
import Testing

/// The commands that diagnose adapters outlive the adapters they diagnose: `accounts adapters`
/// and `accounts doctor` load each adapter file in a child process of its own, in a session of
/// its own, so one that crashes or hangs while loading is named with what happened to it and
/// the others are still listed. An adapter can speak only for itself on the pipe its parent
/// reads, cannot signal the command's process group nor leave processes behind, and a crash it
/// causes later is never blamed on another file.
@Suite(.blocking) struct AdapterContainmentTests {
  /// A short load deadline, so the hanging adapter costs a second per command.
  static let fast = ["ACCOUNTS_ADAPTER_LOAD_TIMEOUT": "1"]

  static let reasons = [
    "aborts": "crashed while loading (SIGABRT)",
    "badstring": "crashed while loading (SIGSEGV)",
    "garbage": "crashed while loading (SIGSEGV)",
    "hangs": "did not finish loading within 1 s; stopped it",
  ]

  /// What an adapter that writes on its probe's pipe is refused for.
  static let protocolReason = "its probe wrote something else on accounts' pipe"

  /// Four adapters that break while loading, beside a good one: name -> path.
  func brokenAdapters(_ sandbox: Sandbox) throws -> [String: String] {
    let directory = try sandbox.userAdapterDirectory()
    try CAdapterCompiler.build("example.c", name: "example", into: directory)
    var broken: [String: String] = [:]
    for (mode, name) in [
      ("MODE_GARBAGE_ENTRY", "garbage"), ("MODE_BAD_STRING", "badstring"),
      ("MODE_ABORT_ON_LOAD", "aborts"), ("MODE_HANG_ON_LOAD", "hangs"),
    ] {
      broken[name] = try CAdapterCompiler.hostile(mode, name: name, into: directory)
    }
    return broken
  }

  /// The example adapter and `hostile` in `mode` as `name`, in the sandbox's adapter directory.
  func probedAdapters(_ sandbox: Sandbox, _ adapters: [(mode: String, name: String)], defines: [String] = []) throws -> (example: String, paths: [String: String]) {
    let directory = try sandbox.userAdapterDirectory()
    let example = try CAdapterCompiler.build("example.c", name: "example", into: directory)
    var paths: [String: String] = [:]
    for (mode, name) in adapters {
      paths[name] = try CAdapterCompiler.build(
        "hostile.c", name: name, defines: ["MODE=\(mode)", "NAME=\"\(name)\""] + defines, into: directory)
    }
    return (example, paths)
  }

  @Test func adaptersNamesEachBrokenAdapterAndListsTheOthers() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let broken = try brokenAdapters(sandbox)

    let listed = try sandbox.run(["adapters"], environment: Self.fast, timeout: 30)
    #expect(listed.status == 0, "\(listed)")
    for (name, path) in broken {
      #expect(listed.standardOutput.contains("\(name)  \(path)\n  refused: \(Self.reasons[name]!)\n"), "\(name): \(listed)")
    }
    for loaded in ["example 1.0.0  ABI 1.3", "hmac 1.0.0", "oauth2 1.0.0", "plain 1.0.0", "signed 1.0.0"] {
      #expect(listed.standardOutput.contains(loaded), "\(loaded): \(listed)")
    }
    #expect(listed.standardError == "4 adapters refused; the others work\n")
    #expect(listed.seconds < 15, "one deadline for the hanging adapter, not a stall")

    let json = try sandbox.run(["adapters", "--json"], environment: Self.fast, timeout: 30)
    #expect(json.status == 0, "\(json)")
    let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
    #expect(entries.compactMap { $0["name"] as? String } == ["aborts", "badstring", "example", "garbage", "hangs", "hmac", "oauth2", "plain", "signed"])
    for entry in entries {
      let name = entry["name"] as? String ?? ""
      if let reason = Self.reasons[name] {
        #expect(entry["refused"] as? String == reason && entry["path"] as? String == broken[name], "\(entry)")
      } else {
        #expect(entry["refused"] is NSNull && entry["abi"] as? String == "1.3", "\(entry)")
      }
    }

    let one = try sandbox.run(["adapters", "garbage"], environment: Self.fast, timeout: 30)
    #expect(one.status == 9)
    #expect(one.standardError == "accounts: adapter \(broken["garbage"]!) refused: crashed while loading (SIGSEGV)\n", "\(one)")
  }

  @Test func doctorNamesEachBrokenAdapterAndExitsWithStatus9() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let broken = try brokenAdapters(sandbox)
    // A backend on a broken adapter: `backend add` would load it, so the config is edited.
    try sandbox.addBackend("corp")
    let config = try String(contentsOfFile: sandbox.configPath, encoding: .utf8)
    try #require(config.contains("\"plain\""))
    try config.replacingOccurrences(of: "\"plain\"", with: "\"garbage\"")
      .write(toFile: sandbox.configPath, atomically: true, encoding: .utf8)
    chmod(sandbox.configPath, 0o600)  // kept private, or doctor's first problem is the mode

    let doctor = try sandbox.run(["doctor"], environment: Self.fast, timeout: 30)
    #expect(doctor.status == 9, "\(doctor)")
    let report = squeezed(doctor.standardOutput)
    for (name, path) in broken {
      #expect(report.contains("FAIL adapter \(path) refused: \(Self.reasons[name]!)\n"), "\(name): \(doctor)")
    }
    #expect(report.contains("ok adapters example, hmac, oauth2, plain, signed loaded"), "\(doctor)")
    #expect(report.contains("FAIL backend corp adapter \(broken["garbage"]!) refused: crashed while loading (SIGSEGV)"), "\(doctor)")
    #expect(doctor.seconds < 15)
  }

  /// A parent that ignores SIGCHLD hands that down, and then the kernel reaps children by
  /// itself: a crash must still be told from a hang.
  @Test func aCrashIsNamedEvenWhenSIGCHLDIsIgnored() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let garbage = try CAdapterCompiler.hostile("MODE_GARBAGE_ENTRY", name: "garbage", into: try sandbox.userAdapterDirectory())
    let ignoring = "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])"
    let result = try runProcess(
      "/usr/bin/python3", ["-c", ignoring, PackagePaths.accounts, "adapters", "garbage"],
      environment: sandbox.environment.merging(["ACCOUNTS_ADAPTER_LOAD_TIMEOUT": "3"]) { $1 }, timeout: 30)
    #expect(result.status == 9)
    #expect(result.standardError == "accounts: adapter \(garbage) refused: crashed while loading (SIGSEGV)\n", "\(result)")
    #expect(result.seconds < 3, "known at once, not at the deadline")
  }

  /// Completion offers what would load: a valid name whose file passes the checks made without
  /// loading it (where it lives, who owns it, its ELF header). A file name a shell would act on
  /// is never offered, and `accounts adapters` shows it refused, printed harmlessly.
  @Test func completionOffersOnlyAdaptersThatPassTheFileChecks() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let scratch = try ScratchDirectory()
    let safe = scratch.path + "/safe"
    let open = scratch.path + "/open"
    for (directory, mode) in [(safe, mode_t(0o755)), (open, 0o777)] {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
      chmod(directory, mode)
    }
    let example = try CAdapterCompiler.build("example.c", name: "example", into: safe)
    let misnamed = ["`touch pwned`", "$(id)", "\u{1b}[31mred", "-rf", "a b"]
    for name in misnamed + ["writable", "text"] {
      try FileManager.default.copyItem(atPath: example, toPath: "\(safe)/\(name).so")
    }
    chmod("\(safe)/writable.so", 0o666)
    try "not a library\n".write(toFile: "\(safe)/text.so", atomically: false, encoding: .utf8)
    try CAdapterCompiler.build("example.c", name: "open", into: open)
    let path = ["ACCOUNTS_ADAPTER_PATH": "\(safe):\(open)"]

    #expect(try sandbox.ok(["__complete", "adapters"], environment: path).standardOutput == "example\nhmac\noauth2\nplain\nsigned\n")

    let listed = try sandbox.ok(["adapters"], environment: path).standardOutput
    #expect(listed.contains("\\u{1b}[31mred  \(safe)/\\u{1b}[31mred.so\n  refused: file name is not a valid adapter name\n"), "\(listed)")
    #expect(listed.contains("$(id)  \(safe)/$(id).so\n  refused: file name is not a valid adapter name\n"), "\(listed)")
    #expect(!listed.contains("\u{1b}"), "no control character reaches the terminal")
    let json = try sandbox.ok(["adapters", "--json"], environment: path).standardOutput
    let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
    let refused = entries.filter { ($0["refused"] as? String) == "file name is not a valid adapter name" }
    #expect(Set(refused.compactMap { $0["path"] as? String }) == Set(misnamed.map { "\(safe)/\($0).so" }))
  }

  @Test func junkOnThePipeRefusesOnlyTheAdapterThatWroteIt() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let (_, paths) = try probedAdapters(sandbox, [("MODE_JUNK_ON_PIPE", "junk")])
    for command in [["adapters"], ["doctor"]] {
      let result = try sandbox.run(command, timeout: 60)
      #expect(!result.standardError.contains("cannot load the adapter host"), "\(result)")
      #expect(squeezed(result.standardOutput).contains(command == ["adapters"]
        ? "junk \(paths["junk"]!)\n refused: \(Self.protocolReason)\n"
        : "FAIL adapter \(paths["junk"]!) refused: \(Self.protocolReason)\n"), "\(result)")
      #expect(result.standardOutput.contains(command == ["adapters"] ? "example 1.0.0" : "example, hmac, oauth2, plain, signed loaded"), "\(result)")
    }
    #expect(try sandbox.run(["adapters"]).status == 0)
  }

  @Test func forgedAnswersForOtherFilesAreNotBelieved() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let directory = try sandbox.userAdapterDirectory()
    let (example, paths) = try probedAdapters(
      sandbox, [("MODE_FORGE_ON_PIPE", "forge")], defines: ["FORGED_PATH=\"\(directory)/example.so\""])
    let result = try sandbox.run(["adapters"], timeout: 60)
    #expect(result.status == 0, "\(result)")
    #expect(result.standardOutput.contains("example 1.0.0  ABI 1.3  \(example)\n"), "\(result)")
    #expect(result.standardOutput.contains("forge  \(paths["forge"]!)\n  refused: \(Self.protocolReason)\n"), "\(result)")
    #expect(!result.standardOutput.contains("FAKE") && !result.standardOutput.contains("curl"), "\(result)")
    #expect(!result.standardOutput.contains("\u{1b}"), "no escape reaches the terminal")
    #expect(result.standardError == "1 adapter refused; the others work\n", "\(result)")
  }

  @Test func aFloodOnThePipeIsRefusedQuickly() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let (_, paths) = try probedAdapters(sandbox, [("MODE_FLOOD_PIPE", "flood")])
    let result = try sandbox.run(["adapters"], timeout: 60)
    #expect(result.status == 0, "\(result)")
    #expect(result.standardOutput.contains("flood  \(paths["flood"]!)\n  refused: \(Self.protocolReason)\n"), "\(result)")
    #expect(result.seconds < 10, "\(result)")
  }

  /// A thread that aborts a second after its adapter loaded takes down that adapter's probe, not
  /// the one loading the next file, which is not reported as the one that crashed.
  @Test func aLateCrashIsNotBlamedOnTheNextFile() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let (_, paths) = try probedAdapters(sandbox, [("MODE_LATE_ABORT", "a-late"), ("MODE_SLOW_LOAD", "b-slow")])
    let result = try sandbox.run(["adapters", "--json"], timeout: 60)
    let entries = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
    let slow = try #require(entries.first { $0["path"] as? String == paths["b-slow"] })
    #expect(slow["refused"] is NSNull && slow["version"] as? String == "0.0.1", "\(slow)")
  }

  /// `kill(0, SIGTERM)` in an adapter reaches its own probe's group only. The command runs in
  /// a session of its own here, so that a signal that got past the probe could not reach the
  /// tests.
  @Test func anAdapterSignallingItsProcessGroupDoesNotEndTheCommand() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let (_, paths) = try probedAdapters(sandbox, [("MODE_KILL_GROUP", "killer")])
    for command in ["adapters", "doctor"] {
      let result = try runProcess(
        "/usr/bin/setsid", ["--wait", PackagePaths.accounts, command], environment: sandbox.environment, timeout: 60)
      #expect(result.status == (command == "adapters" ? 0 : 9), "\(result)")
      #expect(result.standardOutput.contains(paths["killer"]!) && result.standardOutput.contains("(SIGTERM)"), "\(result)")
      #expect(result.standardOutput.contains("example"), "\(result)")
    }
  }

  /// What an adapter forks while it loads ends with its probe.
  @Test func processesAnAdapterForksDoNotOutliveTheCommand() throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let scratch = try ScratchDirectory()
    let sentinel = scratch.path + "/forked.pid"
    _ = try probedAdapters(sandbox, [("MODE_FORK_ON_LOAD", "forker")], defines: ["SENTINEL=\"\(sentinel)\""])
    let result = try runProcess(
      "/usr/bin/setsid", ["--wait", PackagePaths.accounts, "adapters"], environment: sandbox.environment, timeout: 60)
    #expect(result.status == 0, "\(result)")
    #expect(result.seconds < 15, "nothing waited for the forked process's 30 s: \(result)")
    let pid = try #require(Int32(try String(contentsOfFile: sentinel, encoding: .utf8)), "the adapter forked")
    defer { kill(pid, SIGKILL) }  // the process this test caused, by its pid, should it be there
    usleep(100_000)
    #expect(kill(pid, 0) != 0 || isZombie(pid), "the forked process \(pid) is gone")
  }

  /// Ctrl-C while an adapter hangs in its probe (a TAB of `backend add --adapter hangs --set`,
  /// or `accounts adapters`) ends the probe too: it runs in a session of its own, which the
  /// terminal's SIGINT never reaches, and would otherwise outlive the command for as long as the
  /// adapter hangs.
  @Test(arguments: [["__complete", "settings", "--adapter", "hangs", "--"], ["adapters"]])
  func anInterruptedCommandLeavesNoProbeBehind(_ arguments: [String]) throws {
    let world = try Fixture()
    defer { world.close() }
    let sandbox = world.sandbox
    let hangs = try #require(try probedAdapters(sandbox, [("MODE_HANG_ON_LOAD", "hangs")]).paths["hangs"])
    let command = try BackgroundAccounts(sandbox, arguments, environment: ["ACCOUNTS_ADAPTER_LOAD_TIMEOUT": "30"])
    defer { command.kill() }
    let probeLine = "accounts\0__probe-adapters\0--\0\(hangs)\0"
    func probes() -> [pid_t] {
      ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(pid_t.init)
        .filter { procFile("/proc/\($0)/cmdline") == probeLine && !processIsGone($0) }
    }
    #expect(waitUntil(seconds: 20) { !probes().isEmpty }, "the probe of \(hangs) started")
    let started = probes()
    defer { for pid in probes() where started.contains(pid) { kill(pid, SIGKILL) } }  // ours, by pid
    command.process.signal(SIGINT)
    command.process.waitUntilExit()
    #expect(command.process.endedBySignal, "ended by the SIGINT")
    #expect(waitUntil(seconds: 5) { probes().isEmpty }, "no probe left: \(probes())")
  }

  func isZombie(_ pid: Int32) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat"), let data = try? handle.readToEnd() else { return true }
    return String(decoding: data, as: UTF8.self).contains(") Z ")
  }
}
