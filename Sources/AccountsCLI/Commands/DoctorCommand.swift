import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsServices
import AccountsSystem

/// `accounts doctor`: is everything accounts depends on in order? Each finding names its fix.
enum DoctorCommand {
  static let spec = CommandSpec(
    "doctor",
    summary: "check the keyring, the index, the config and the adapters",
    discussion: """
      Checks that accounts' own libraries are installed where only you or root can change \
      them, whole, and load as this version of accounts expects, that the Secret Service is reachable and which program provides it, whether the \
      keyring collection is locked, that the index and config files are readable, well formed, \
      yours (it shows their owner) and private (0600 in 0700 directories), whether a command \
      was interrupted between the keyring and the index (doctor settles what it left), whether the \
      keyring holds items of accounts that no account or backend claims (reported with the \
      command that deletes them, never deleted: another installation may share the keyring), \
      whether a password, token, one-time code seed or secret setting that the index or \
      config.json claims is gone from the keyring (deleted outside accounts; reported with the \
      command that stores it again), that every adapter file is safe to load and every backend's adapter loads and has its \
      settings. Prints one line per check, with the fix for each problem; exits with the status \
      of the first problem (7 for the keyring, 1 for files, settings and unclaimed items, 3 for \
      a secret gone, 9 for adapters), 0 when all is well.
      """,
    examples: [("accounts doctor", "find out why something does not work")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let findings = Diagnosis(
      paths: environment.paths, ledger: environment.ledger, secretStore: { try environment.secretStore() },
      searchPath: environment.adapterSearchPath, adapterLoadTimeout: { try environment.adapterLoadTimeout() },
      busAddress: environment.variables["DBUS_SESSION_BUS_ADDRESS"] ?? "",
      secretTimeout: { try Environment.secretTimeout(environment.variables) }
    ).findings()
    if invocation.json {
      environment.output.writeJSON(.array(findings.map { finding in
        .object([
          "check": .string(finding.check), "ok": .bool(finding.ok),
          "detail": .string(finding.detail), "fix": finding.fix.map { .string($0) } ?? .null,
        ])
      }))
    } else {
      let width = findings.map(\.check.count).max() ?? 0
      for finding in findings {
        let padding = String(repeating: " ", count: width - finding.check.count)
        environment.output.writeText(
          "\(finding.ok ? "ok  " : "FAIL")  \(finding.check)\(padding)  \(finding.detail)\n")
        if let fix = finding.fix {
          environment.output.writeText("      \(String(repeating: " ", count: width))  fix: \(fix)\n")
        }
      }
    }
    let problems = findings.filter { !$0.ok }
    if let first = problems.first {
      throw CommandError(
        first.status, "\(counted(problems.count, "problem")) found",
        fix: invocation.json ? "see the fix of each check" : "see the fixes above")
    }
  }
}
