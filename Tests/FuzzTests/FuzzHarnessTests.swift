import Glibc
import Testing

/// The harness itself: a failed check, a trap and a hang each end the child with a failure, and
/// its log names the case that did it, so the failure can be run again alone. One at a time:
/// with each fuzz target's child running beside them, more children at once made one target
/// wait for the others' budgets (a 120 s run took 240 s).
@Suite(.serialized) struct FuzzHarnessTests {
  @Test func aFailedCheckNamesItsCase() async {
    let log = Fuzz.logPath("harness-check")
    await #expect(processExitsWith: .exitCode(1)) { [log = log as String] in
      Fuzz.run("harness-check", seed: 7, log: log, seconds: 5, only: nil) { fuzz in
        fuzz.check(fuzz.number != 4, "four")
      }
    }
    #expect(Fuzz.take(log).contains("fuzz harness-check seed 7 case 4: four\n"))
  }

  @Test func aTrapNamesItsCase() async {
    let log = Fuzz.logPath("harness-trap")
    await #expect(processExitsWith: .failure) { [log = log as String] in
      Fuzz.run("harness-trap", seed: 7, log: log, seconds: 5, only: nil) { fuzz in
        let divisor = 3 - fuzz.number
        fuzz.check(6 / divisor != 0, "unreachable")
      }
    }
    #expect(Fuzz.take(log).contains("fuzz harness-trap seed 7 case 3 trapped (signal \(SIGILL))"))
  }

  @Test func aHangNamesItsCase() async {
    let log = Fuzz.logPath("harness-hang")
    await #expect(processExitsWith: .exitCode(2)) { [log = log as String] in
      Fuzz.run("harness-hang", seed: 7, log: log, seconds: 5, only: nil, caseLimit: 0.2) { fuzz in
        while fuzz.number == 2 { usleep(10_000) }
      }
    }
    #expect(Fuzz.take(log).contains("fuzz harness-hang seed 7 case 2: no result within 0.200 s (a hang)"))
  }

  /// FUZZ_CASE's way: the case a failure names, run alone, is the same case.
  @Test func aCaseRunsAloneAsInTheStream() async {
    let log = Fuzz.logPath("harness-alone")
    await #expect(processExitsWith: .exitCode(1)) { [log = log as String] in
      var alone: UInt64 = 0
      Fuzz.run("harness-alone", seed: 7, log: log, only: 5) { fuzz in alone = fuzz.random.next() }
      Fuzz.run("harness-alone", seed: 7, log: log, seconds: 5, only: nil) { fuzz in
        guard fuzz.number == 5 else { return }
        var random = fuzz.random
        fuzz.check(random.next() != alone, "the same numbers")
      }
    }
    #expect(Fuzz.take(log).contains("fuzz harness-alone seed 7 case 5: the same numbers\n"))
  }
}
