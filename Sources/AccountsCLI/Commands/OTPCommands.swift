import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsServices
import AccountsSystem

/// `accounts otp [USER]` (`otp code`), `accounts otp set USER`: RFC 6238 one-time codes from a
/// seed kept in the Secret Service.
enum OTPCommands {
  static let spec = CommandSpec(
    group: "otp",
    summary: "print the current one-time code (TOTP), or set the seed",
    discussion: """
      `accounts otp [USER]` is `accounts otp code [USER]`: the account's current time-based \
      one-time code (RFC 6238), computed from the seed `accounts otp set` (or `accounts \
      import`) kept in the Secret Service. A user named like a subcommand (code, set) is \
      given as USER@BACKEND.
      """,
    subcommands: [OTPCodeCommand.spec, OTPSetCommand.spec], defaultSubcommand: "code")
}

enum OTPCodeCommand {
  static let spec = CommandSpec(
    "code",
    summary: "print the current one-time code",
    discussion: """
      Prints the account's one-time code and a newline on stdout: HMAC-SHA1, -SHA256 or \
      -SHA512 (libgcrypt's), 6 to 8 digits, a new one every period (30 s unless the seed's \
      URI says otherwise), as the seed says. On a terminal, the seconds the code stays valid \
      follow on stderr, e.g. "(17 s left)". --at computes the code of another moment instead \
      of now. Exits 3 when the account has no seed (`accounts otp set USER` stores one), 7 \
      when the keyring is locked or cannot be reached. With --json: {"account": ..., "code": \
      ..., "period": SECONDS, "expires_at": ISO-8601}.
      """,
    picksAccount: true, options: [at],
    examples: [
      ("accounts otp alice", "alice's current code"),
      ("accounts otp alice --at 1700000000", "the code alice's seed gave at that moment"),
    ],
    handler: run)

  static let at = OptionSpec(
    "at", value: "UNIX_SECONDS",
    help: "the code at this moment (seconds since 1970) instead of now, e.g. to check clocks")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let moment = try invocation.value(at).map(unixSeconds)
    try environment.ledger.adoptSecretServiceIfAsked()
    let book = try environment.index.load()
    let id = try environment.pickAccount(invocation, in: book).id
    let name = book.shortestName(for: id)
    guard book[id]!.otp else {
      throw CommandError(
        .loginRequired, "no one-time code seed for \(id)", fix: "store one with `accounts otp set \(name)`")
    }
    guard let seed = try environment.ledger.claimedOTPSeed(of: id, in: book) else {
      throw CommandError(
        .loginRequired,
        "the keyring has no one-time code seed for \(id) (deleted outside accounts, or a command that set it was interrupted)",
        fix: "store it again with `accounts otp set \(name)`")
    }
    let now = moment ?? environment.now().secondsSince1970
    let code = try TOTP.code(seed, at: now)
    if invocation.json {
      environment.output.writeJSON(
        .object([
          "account": .string(id.description), "code": .string(code),
          "period": .number(JSONNumber(Int64(seed.period))),
          "expires_at": .string(Timestamp(secondsSince1970: TOTP.expiry(seed, at: now)).iso8601),
        ]))
      return
    }
    environment.output.write(code + "\n")
    if moment == nil, environment.terminal.errorIsTerminal {
      try environment.output.flush()  // the code first, then the talk about it
      environment.output.message("(\(TOTP.secondsLeft(seed, at: now)) s left)")
    }
  }

  /// `--at`'s value: whole seconds since 1970, up to the year 9999.
  static func unixSeconds(_ text: String) throws(CommandError) -> Int64 {
    guard !text.isEmpty, text.count <= 12, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
      let seconds = Int64(text), seconds <= Timestamp.latest.secondsSince1970
    else {
      throw .usage(
        "--at takes whole seconds since 1970 (0 to \(Timestamp.latest.secondsSince1970)), not '\(Names.printable(text, limit: 40))'",
        fix: "e.g. --at $(date +%s -d '2026-01-01 12:00')")
    }
    return seconds
  }
}
