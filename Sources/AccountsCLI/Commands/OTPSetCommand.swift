import AccountsCore
import AccountsJSON

/// `accounts otp set USER [--remove]`: store, replace or delete an account's TOTP seed.
enum OTPSetCommand {
  static let spec = CommandSpec(
    "set",
    summary: "store or remove an account's one-time code seed",
    discussion: """
      Stores a TOTP seed for the account in the Secret Service (kind otp), replacing the one it \
      had: an otpauth://totp/LABEL?secret=...&issuer=...&algorithm=...&digits=...&period=... \
      URI (the text of the site's QR code), KeeOTP's key=...&size=...&step=... (as KeePassXC \
      may keep it) or a bare base32 seed (then SHA1, 6 digits, 30 s). \
      It is read from stdin when stdin is not a terminal (its first line), else asked for \
      without echo; never from the command line. Base32 is read strictly: upper or lower case, \
      '=' padding at the end and spaces between groups are taken, anything else is refused \
      (exit 2, without repeating the seed), and so is a key shorter than 80 bits (16 base32 \
      characters). otpauth://hotp (counter) seeds are refused. \
      With --remove the seed is deleted instead (an account without one: said, exit 0; a seed \
      left by an interrupted `otp set` is deleted too). \
      `accounts remove` deletes it with the account. With --json: {"account": ..., "otp": \
      true or false}.
      """,
    arguments: [SharedArguments.account], options: [remove],
    examples: [
      (
        "printf '%s\\n' 'otpauth://totp/corp:alice?secret=JBSWY3DPEHPK3PXP&issuer=corp' | accounts otp set alice",
        "keep alice's seed"
      ),
      ("accounts otp set alice --remove", "forget it"),
    ],
    secretInput: .seed,
    handler: run)

  static let remove = OptionSpec("remove", help: "delete the account's seed instead of storing one")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let book = try environment.index.load()
    let id = try environment.resolveAccount(invocation.argument(SharedArguments.account)!, invocation, in: book)
    let stored: Bool
    if invocation.isSet(remove) {
      let removed = try environment.ledger.removeOTPSeed(of: id)
      stored = false
      environment.output.message(
        removed ? "removed the one-time code seed of \(id)" : "\(id) has no one-time code seed: nothing to remove")
    } else {
      let text =
        environment.terminal.canPrompt
        ? try environment.terminal.promptSecret(
          "One-time code seed for \(id) (otpauth:// URI or base32): ", what: "seed", stdinOption: "a pipe")
        : try environment.terminal.readSecretFromStandardInput(what: "seed")
      var seed = try OTPSeed(parsing: text)
      if seed.label.isEmpty { seed.label = id.description }
      try environment.ledger.setOTPSeed(of: id, to: seed)
      stored = true
      environment.output.message(
        "stored the one-time code seed of \(id) (\(seed.algorithm.rawValue), \(seed.digits) digits, \(seed.period) s)")
    }
    if invocation.json {
      environment.output.writeJSON(.object(["account": .string(id.description), "otp": .bool(stored)]))
    }
  }
}
