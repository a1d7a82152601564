import Foundation
import TestSupport
import Testing

/// `otp` is a group whose default subcommand takes the account: after `otp`, every shell
/// offers the subcommands and the accounts, and a word that is no subcommand is the account.
@Suite(.blocking) struct OTPCompletionTests {
  @Test(arguments: CompletionDriver.Shell.allCases) func otpCompletesSubcommandsAndAccounts(
    _ shell: CompletionDriver.Shell
  ) throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    try sandbox.addBackend("corp")
    for name in ["bob", "bobby", "carol"] { try sandbox.ok(["add", name]) }
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    func expect(_ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
      #expect(try driver.offered(shell, line) == expected, "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    try expect("accounts otp ", ["bob", "bobby", "carol", "code", "set"])
    try expect("accounts otp bo", ["bob", "bobby"])
    try expect("accounts otp s", ["set"])
    try expect("accounts otp bob ", [])  // one USER only
    try expect("accounts otp bob --a", ["--account", "--at"])
    try expect("accounts otp code ca", ["carol"])
    try expect("accounts otp set bo", ["bob", "bobby"])
    try expect("accounts otp set bob --r", ["--remove"])
    try expect("accounts backend nonsense ", [])  // a group whose default takes no word
  }
}
