import AccountsContract
@testable import AccountsCLI
import AccountsServices
import AccountsCore
import AccountsSystem
import Foundation
import Testing

/// The rule step of SPEC §3 when the working directory was deleted: the path it had decides,
/// and when that is unknown the step fails instead of falling through to the slot.
@Suite struct WorkingDirectoryTests {
  /// An environment whose config.json holds one rule, /work/corp -> alice@corp, and whose
  /// working directory is `here`.
  func environment(_ here: WorkingDirectory) throws -> (Environment, cleanUp: () -> Void) {
    let root = NSTemporaryDirectory() + "accounts-cli-tests-" + UUID().uuidString
    let paths = Paths(configDirectory: root + "/config", stateDirectory: root + "/state", dataDirectory: root + "/data")
    try FileManager.default.createDirectory(
      atPath: paths.configDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try #"{"version": 1, "backends": {}, "rules": {"/work/corp": "alice@corp"}}"#.write(
      toFile: paths.config, atomically: false, encoding: .utf8)
    chmod(paths.config, 0o600)
    let environment = Environment(
      variables: [:], paths: paths, terminal: Terminal(canPrompt: false, errorIsTerminal: false), output: Output(),
      now: { Timestamp(secondsSince1970: 1_800_000_000) },
      makeSecretStore: { throw CommandError.usage("no keyring in unit tests") }, currentDirectory: { here })
    return (environment, { try? FileManager.default.removeItem(atPath: root) })
  }

  @Test func theRuleOfTheDeletedDirectorysFormerPathDecides() throws {
    let alice = AccountID(user: "alice", backend: "corp")
    let (deleted, cleanUp) = try environment(.deleted(formerPath: "/work/corp/build"))
    defer { cleanUp() }
    let found = try deleted.directoryRule()
    #expect(found.rule?.account == alice && found.deleted == "/work/corp/build")

    let (present, cleanUpPresent) = try environment(.present("/work/corp/build"))
    defer { cleanUpPresent() }
    let here = try present.directoryRule()
    #expect(here.rule?.account == alice && here.deleted == nil)

    let (outside, cleanUpOutside) = try environment(.deleted(formerPath: "/work/corporate"))
    defer { cleanUpOutside() }
    #expect(try outside.directoryRule().rule == nil)
  }

  @Test func aDeletedDirectoryWhosePathIsUnknownFailsRatherThanUseTheSlot() throws {
    let (environment, cleanUp) = try environment(.deleted(formerPath: nil))
    defer { cleanUp() }
    let error = #expect(throws: CommandError.self) { try environment.directoryRule() }
    #expect(error?.status == .failure)
    #expect(error?.message.contains("the current directory was deleted") == true, "\(String(describing: error))")
    #expect(error?.fix?.contains("ACCOUNTS_ACCOUNT") == true)
  }
}
