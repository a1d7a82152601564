import Foundation
import TestSupport
import Testing

/// The generated completion scripts, run by the real shells against the built binary.
@Suite struct CompletionTests {
  typealias Shell = CompletionDriver.Shell

  func sandbox() throws -> Sandbox {
    let sandbox = try Sandbox()
    try sandbox.addBackend("corp")
    try sandbox.addBackend("test")
    for name in ["alice@corp", "alice@test", "bob@corp", "bobby@test"] {
      try sandbox.ok(["add", name])
    }
    return sandbox
  }

  /// The same cases in every shell: commands, options, account and backend names, fixed lists,
  /// and nothing where nothing fits.
  @Test(arguments: Shell.allCases) func completesCommandsOptionsAndNames(_ shell: Shell) throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let driver = try CompletionDriver(
      program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    func expect(
      _ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      let offered = try driver.offered(shell, line)
      #expect(offered == expected, "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    try expect("accounts pa", ["passwd", "password"])
    try expect("accounts backend ", ["add", "list", "remove", "show", "test"])
    try expect("accounts add bob --re", ["--remember"])
    try expect("accounts password ", ["alice@corp", "alice@test", "bob", "bobby"])
    try expect("accounts password bo", ["bob", "bobby"])
    try expect("accounts --backend corp password ", ["alice@corp", "bob"])
    try expect("accounts --backend=test password ", ["alice@test", "bobby"])
    try expect("accounts list --backend ", ["corp", "test"])
    try expect("accounts backend show t", ["test"])
    try expect("accounts completion ", ["bash", "fish", "zsh"])
    try expect("accounts password alice@corp ", [])  // one USER only
    try expect("accounts nonsense ", [])
  }

  /// bash splits words at the `@` and `:` of COMP_WORDBREAKS; completing `alice@co` must still
  /// finish the name, and what lands on the command line (TAB, then Enter) is the whole name.
  @Test(arguments: Shell.allCases) func completesAcrossAtSigns(_ shell: Shell) throws {
    let sandbox = try sandbox()
    defer { sandbox.close() }
    let driver = try CompletionDriver(
      program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    guard shell != .fish else {
      // fish has no word breaks inside a token; it inserts what it offers.
      let offered = try driver.offered(.fish, "accounts password alice@co")
      #expect(offered == ["alice@corp"])
      return
    }
    func expectRan(
      _ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      let ran = try driver.ran(shell, line)
      #expect(ran == expected, "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    try expectRan("accounts password alice@co", ["password", "alice@corp"])
    try expectRan("accounts password alice@t", ["password", "alice@test"])
    try expectRan("accounts password bobb", ["password", "bobby"])
  }
}
