import Testing

/// Every fuzz target, each run by `FuzzTargetTests` in a child process of its own.
enum FuzzTargets {
  static let all: [String: @Sendable (inout Case) -> Void] = [
    "parser": ParserFuzz.oneCase, "documents": DocumentFuzz.oneCase, "adapter-replies": AdapterReplyFuzz.oneCase,
    "import": ImportFuzz.oneCase, "otp": OTPFuzz.oneCase, "dbus-messages": DBusMessageFuzz.oneCase,
  ]
}

@Suite struct FuzzTargetTests {
  /// One target for the budget (FUZZ_SECONDS) from the run's seed; the test fails with the
  /// child's log when a check fails, the child traps, or a case hangs.
  @Test(arguments: FuzzTargets.all.keys.sorted())
  func target(_ name: String) async {
    let (seed, log) = (Fuzz.runSeed, Fuzz.logPath(name))
    await #expect(processExitsWith: .success) { [name = name as String, seed = seed as UInt64, log = log as String] in
      Fuzz.run(name, seed: seed, log: log, FuzzTargets.all[name]!)
    }
    Fuzz.report(name, log: log)
  }
}
