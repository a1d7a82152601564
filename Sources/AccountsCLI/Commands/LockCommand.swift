import AccountsCore
import AccountsJSON

/// `accounts lock`: lock the keyring collection (the Linux counterpart of the seeds' Touch ID gate).
enum LockCommand {
  static let spec = CommandSpec(
    "lock",
    summary: "lock the keyring collection",
    discussion: """
      Locks the Secret Service collection that holds accounts' secrets. The next command that \
      needs a secret asks the keyring to unlock it (its own prompt, on a desktop) or exits 7 \
      saying that it is locked. `list`, `current` and completion keep working: they need no \
      secret.
      """,
    examples: [("accounts lock", "lock the keyring before leaving the machine")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let label = try environment.ledger.lockCollection()
    if invocation.json { environment.output.writeJSON(.object(["locked": .string(label)])) }
    environment.output.message("locked the keyring collection '\(label)'")
  }
}
