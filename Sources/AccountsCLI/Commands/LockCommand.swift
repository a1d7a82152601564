import AccountsCore
import AccountsJSON

/// `accounts lock`: lock the keyring collection (the Linux counterpart of the seeds' Touch ID gate).
enum LockCommand {
  static let spec = CommandSpec(
    "lock",
    summary: "lock the keyring collection",
    discussion: """
      Locks the Secret Service collections that hold accounts' secrets, and the default one \
      (where new secrets go), and checks that each says it is locked. The next command that \
      needs a secret asks the keyring to unlock it (its own prompt, on a desktop) or exits 7 \
      saying that it is locked. `list`, `current` and completion keep working: they need no \
      secret. A collection is locked for every application, not only for accounts: with \
      gnome-keyring that is the whole login keyring, so the secrets of your browser, mail and \
      other programs are locked too until it is unlocked again.
      """,
    examples: [("accounts lock", "lock the keyring before leaving the machine")],
    handler: run)

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    // The default collection's label first, then the others', one per line.
    let labels = try environment.ledger.lockCollection().split(separator: "\n").map(String.init)
    if invocation.json {
      environment.output.writeJSON(
        .object(["locked": .string(labels.first ?? ""), "collections": .array(labels.map { .string($0) })]))
    }
    let named = labels.map { "'\($0)'" }.joined(separator: ", ")
    environment.output.message("locked the keyring collection\(labels.count == 1 ? "" : "s") \(named)")
  }
}
