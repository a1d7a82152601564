import Foundation
import TestSupport
import Testing

/// Tags offered by the generated completion scripts in the real shells: every tag after
/// `list --tag` and `tag USER`, only the account's own after `untag USER`.
@Suite(.blocking) struct TagCompletionTests {
  @Test(arguments: CompletionDriver.Shell.allCases) func offersExistingTags(_ shell: CompletionDriver.Shell) throws {
    let sandbox = try Sandbox()
    defer { sandbox.close() }
    try sandbox.addBackend("corp")
    try sandbox.addBackend("test")
    for name in ["alice@corp", "alice@test", "bob@corp", "bobby@test"] { try sandbox.ok(["add", name]) }
    try sandbox.ok(["tag", "bob", "qa", "smoke"])
    try sandbox.ok(["tag", "bobby", "qa", "nightly"])
    try sandbox.ok(["tag", "alice@corp", "ci.1"])
    let driver = try CompletionDriver(program: PackagePaths.accounts, environment: sandbox.environment)
    defer { driver.close() }
    func expect(_ line: String, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
      let offered = try driver.offered(shell, line)
      #expect(offered == expected.sorted(), "\(shell): \(line)", sourceLocation: sourceLocation)
    }
    let every = ["ci.1", "nightly", "qa", "smoke"]
    try expect("accounts list --tag ", every)
    try expect("accounts list --tag s", ["smoke"])
    try expect("accounts list --tag qa --tag n", ["nightly"])
    try expect("accounts --backend test list --tag ", ["nightly", "qa"])
    try expect("accounts tag ", ["alice@corp", "alice@test", "bob", "bobby"])
    try expect("accounts tag bob ", every)
    try expect("accounts tag bob qa ", every)
    try expect("accounts untag bob ", ["qa", "smoke"])
    try expect("accounts untag bobby ", ["nightly", "qa"])
    try expect("accounts untag bobby qa n", ["nightly"])
    try expect("accounts untag alice@corp ", ["ci.1"])
    try expect("accounts untag alice@test ", [])
    try expect("accounts --backend corp untag alice ", ["ci.1"])
    try expect("accounts untag nobody ", [])
    try expect("accounts untag ali ", [])  // two accounts start with ali
    // Quotes around a word are the shell's, not the name's.
    try expect("accounts untag 'bobby' ", ["nightly", "qa"])
    try expect("accounts untag \"bob\" s", ["smoke"])
    try expect("accounts --backend 'test' list --tag ", ["nightly", "qa"])
  }
}
