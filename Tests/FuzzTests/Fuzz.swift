import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// Runs one fuzz target: cases drawn from a 64-bit seed, one after another until the budget is
/// spent, in a child process of its own (a Swift Testing exit test), so a trap ends only that
/// child and fails only that test.
///
/// - `FUZZ_SEED` (decimal or 0x hex): the run's seed; without it a fresh one. Each target draws
///   its own stream from it, and case N of a target from the Nth number of that stream, so the
///   same seed runs the same cases on every machine.
/// - `FUZZ_SECONDS`: each target's budget (default 0.5; `scripts/fuzz` gives more).
/// - `FUZZ_CASE`: run only case N (as a failure names it).
///
/// The child's stderr goes to a log the parent reads: the summary "fuzz TARGET: seed S, N
/// cases" when it ends well, else "fuzz TARGET seed S case N: ..." for a failed check (exit
/// status 1), a trap (from a signal handler, before the runtime's own report) or a case still
/// running after `caseLimit` seconds (a hang, exit status 2), and the test fails with the log.
enum Fuzz {
  /// The run's seed, chosen once in the parent and handed to each child.
  static let runSeed: UInt64 = environmentNumber("FUZZ_SEED") ?? UInt64.random(in: 0...UInt64.max)

  static var seconds: Double { getenv("FUZZ_SECONDS").flatMap { Double(String(cString: $0)) } ?? 0.5 }

  static var onlyCase: Int? { environmentNumber("FUZZ_CASE").map { Int(truncatingIfNeeded: $0) } }

  /// Runs `oneCase` over fresh cases of `target` until `seconds` are spent (at least one case).
  /// Called in the child. `caseLimit`: the longest one case may run before it counts as a hang
  /// (cases take microseconds to milliseconds; this leaves room for a loaded machine).
  static func run(
    _ target: String, seed: UInt64, log: String, seconds: Double = seconds, only: Int? = onlyCase,
    caseLimit: Double = 10, _ oneCase: (inout Case) -> Void
  ) {
    let descriptor = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    if descriptor >= 0 { dup2(descriptor, 2) }
    Watch.start(label: "fuzz \(target) seed \(seed) case ", limit: Int64(caseLimit * 1e9))
    let start = now()
    let deadline = start + Int64(seconds * 1e9)
    var stream = SplitMix(seed: seed ^ fnv1a(target))
    var number = 0
    var ran = 0
    repeat {
      let caseSeed = stream.next()
      if only == nil || only == number {
        Watch.begin(number)
        var fuzzCase = Case(target: target, seed: seed, number: number, random: SplitMix(seed: caseSeed))
        oneCase(&fuzzCase)
        ran += 1
      }
      number += 1
    } while only.map { number <= $0 } ?? (now() < deadline)
    Watch.stop()
    let elapsed = String(format3: Double(now() - start) / 1e9)
    let tallies = Case.tallies.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    say("fuzz \(target): seed \(seed), \(ran) cases in \(elapsed) s\(tallies.isEmpty ? "" : " (\(tallies))")\n")
  }

  /// Where the child of `target` writes its stderr, for the parent to read.
  static func logPath(_ target: String) -> String {
    let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    return "\(directory)/fuzz-\(target)-\(getpid()).log"
  }

  /// The log's text, and the log removed.
  static func take(_ log: String) -> String {
    defer { unlink(log) }
    return FileManager.default.contents(atPath: log).map { String(decoding: $0, as: UTF8.self) } ?? ""
  }

  /// Shows the child's summary in the parent, and its log as the failure when it ended
  /// without one (a failed check, a trap, a hang).
  static func report(_ target: String, log: String, sourceLocation: SourceLocation = #_sourceLocation) {
    // Control characters (a NUL from a message quoting its input) would cut the test's output.
    var text = ""
    for scalar in take(log).unicodeScalars {
      if scalar.value < 0x20, scalar != "\n" {
        text += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        text.unicodeScalars.append(scalar)
      }
    }
    let summary = "fuzz \(target): seed "
    for line in text.split(separator: "\n") where line.hasPrefix(summary) { say(line + "\n") }
    if !text.contains(summary) {
      Issue.record(
        "fuzz \(target) failed; FUZZ_SEED and FUZZ_CASE as below run the case again:\n\(text.suffix(6000))",
        sourceLocation: sourceLocation)
    }
  }

  /// `text` on stderr, in one write(2).
  static func say(_ text: some StringProtocol) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
  }

  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  private static func environmentNumber(_ name: String) -> UInt64? {
    guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
    return value.hasPrefix("0x") ? UInt64(value.dropFirst(2), radix: 16) : UInt64(value)
  }

  /// FNV-1a: a stable hash of the target's name (Swift's `Hasher` is seeded per process).
  private static func fnv1a(_ text: String) -> UInt64 {
    text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }
}

extension String {
  init(format3 value: Double) {
    let thousandths = Int((value * 1000).rounded())
    let fraction = String(thousandths % 1000)
    self = "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
  }
}

/// One case: its random numbers, and the checks that end the child when they fail.
struct Case {
  let target: String
  let seed: UInt64
  let number: Int
  var random: SplitMix

  /// How often each outcome came up, for the summary: a target whose inputs never get past
  /// the first check tests little.
  nonisolated(unsafe) static var tallies: [String: Int] = [:]

  func tally(_ outcome: String) { Self.tallies[outcome, default: 0] += 1 }

  /// Ends the child with status 1 when `condition` is false, naming the case and `detail`.
  func check(_ condition: Bool, _ detail: @autoclosure () -> String) {
    guard !condition else { return }
    Fuzz.say("fuzz \(target) seed \(seed) case \(number): \(detail())\n")
    _exit(1)
  }
}

/// The case running now, for the signal handler (a trap) and the watchdog (a hang).
private enum Watch {
  static let current = Atomic<Int>(0)
  static let started = Atomic<Int64>(0)
  static let limit = Atomic<Int64>(0)
  nonisolated(unsafe) static var label: [UInt8] = []
  nonisolated(unsafe) static var previous: [Int32: sigaction] = [:]
  static let signals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]

  static func begin(_ number: Int) {
    current.store(number, ordering: .relaxed)
    started.store(Fuzz.now(), ordering: .relaxed)
  }

  /// After the last case: nothing runs that could hang.
  static func stop() { started.store(.max, ordering: .relaxed) }

  nonisolated(unsafe) static var installed = false

  /// Before the first case of a run: installs the handlers and the watchdog thread, once per
  /// process (a second run would otherwise take its own handler for the one to put back).
  static func start(label text: String, limit nanoseconds: Int64) {
    label = Array(text.utf8)
    limit.store(nanoseconds, ordering: .relaxed)
    started.store(Fuzz.now(), ordering: .relaxed)
    guard !installed else { return }
    installed = true
    for signal in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_handler = { signal in Watch.trapped(signal) }
      var old = sigaction()
      sigaction(signal, &action, &old)
      previous[signal] = old
    }
    var thread = pthread_t()
    pthread_create(&thread, nil, { _ in Watch.watch() }, nil)
  }

  /// In the signal handler: writes the case's line, then puts the previous handler back, so
  /// the trap happens again on return and the runtime reports it as it would have.
  static func trapped(_ signal: Int32) {
    say(" trapped (signal \(signal))\n")
    if var old = previous[signal] { sigaction(signal, &old, nil) }
  }

  static func watch() -> UnsafeMutableRawPointer? {
    while true {
      usleep(100_000)
      let (since, limit) = (started.load(ordering: .relaxed), limit.load(ordering: .relaxed))
      if since != .max, Fuzz.now() - since > limit {
        say(": no result within \(String(format3: Double(limit) / 1e9)) s (a hang)\n")
        _exit(2)
      }
    }
  }

  /// The label, the case number and `tail`, with one write(2). (It allocates: in the signal
  /// handler of a trap that is a small risk, taken for a message that names the case.)
  private static func say(_ tail: String) {
    Fuzz.say(String(decoding: label, as: UTF8.self) + String(current.load(ordering: .relaxed)) + tail)
  }
}
