import Foundation
import TestSupport
import Testing

/// The tour `scripts/demo` shows (scripts/lib/tour), run as the demo runs it, in a keyring of its
/// own: every step works except the few that show an error on purpose.
@Suite(.blocking) struct TourTests {
  @Test func everyStepWorksButTheOnesThatShowAnErrorOnPurpose() throws {
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = PackagePaths.products.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    let tour = try runProcess(
      PackagePaths.script("with-keyring"), [PackagePaths.script("lib/tour")], environment: environment,
      timeout: 120, currentDirectory: PackagePaths.root.path)
    #expect(tour.status == 0, "\(tour)")
    // Each step prints "$ COMMAND" (in bold), then its output, then "(exit status N)" when it failed.
    var step = ""
    var failed: [String] = []
    for line in tour.standardOutput.split(separator: "\n") {
      if line.hasPrefix("\u{1B}[1m$ ") { step = String(line.dropFirst(6).prefix { $0 != "\u{1B}" }) }
      if line.hasPrefix("(exit status ") { failed.append("\(step) \(line)") }
    }
    #expect(
      failed == [
        "accounts request GET me (exit status 5)",  // alice signed in on another device
        "accounts token carol (exit status 3)",  // carol has no session yet
        "accounts password alcie (exit status 3)",  // a typo, and the suggestion
        "accounts password alice (exit status 7)",  // the keyring locked, last
      ], "\(tour.standardOutput)")
    #expect(tour.standardError.contains("forgot 2 accounts"), "clear --yes forgets everything: \(tour.standardError)")
  }
}
