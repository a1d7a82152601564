import AccountsContract
import AccountsCore

/// `accounts login [USER] [--remember] [--auto] [--password-stdin]`, and
/// `accounts login --stale [USER...]` (`LoginStale`).
enum LoginCommand {
  static let spec = CommandSpec(
    "login",
    summary: "log in through the backend and keep the session",
    discussion: """
      Logs the account in through its backend's adapter and stores the session token (with its \
      expiry) in the keyring; a new USER is saved first. The password is the one given with \
      --password-stdin, else the remembered one, else asked for without echo on a terminal; \
      without a terminal and nothing remembered it exits 3 at once. --remember keeps the \
      password; --auto also makes the account the auto-login one. Exit 4 when the backend \
      rejects the password, 6 when it wants a newer client, 8 when it cannot be reached. \
      Then the login hooks run (`accounts hooks`) unless --no-hooks.

      An account another holder leases (`accounts leases`, on this machine or, through a \
      shared lease store, on another) is refused with exit 1, naming the holder: its session \
      is the holder's, and a login here could end it. --force logs it in anyway.

      A backend that sets otp_field (plain, hmac) or otp_param (signed) also needs a one-time \
      code at every login: the current one from the account's TOTP seed (`accounts otp set`), \
      else asked for without echo on a terminal (6 to 8 digits; anything else exits 2); \
      without either it exits 3 ("needs a one-time code"). A rejected code exits 4 like a \
      rejected password, and the remembered password is kept; the message says to check the \
      seed and the clock too.

      A backend whose logins a person approves in a browser (oauth2 with grant=device_code) \
      asks for no password: it shows the page to open and the code to enter, and waits until \
      the provider says approved (0), denied (4) or expired (5); Ctrl-C stops it, storing \
      nothing. Without a terminal it exits 3, naming this command to run on one. A login that \
      gets a refresh token keeps it in the Secret Service: when the session expires, commands \
      renew it with that token first, before the remembered password.

      The account is, first match wins: \(AccountChoice.orderText). \(AccountChoice.pickerText)

      With --stale: of the named accounts, else those with every --tag, else every saved one \
      (--backend narrows), each whose session is missing, expired or ends within --within \
      (default 10m) is renewed with its refresh token, else logged in with its remembered \
      password, at most --jobs at once (default 4, at most 64); the others are left alone. An \
      account with neither is skipped, never asked for a password, and so is one another holder leases (unless --force); \
      --remember, --auto, --password-stdin and --account are refused. Prints one line per account \
      (logged in, fresh, skipped or failed) on stderr as its login ends, under a "logging in N/M" \
      line on a terminal that is erased at the end, then a summary, then runs the login hooks of each account logged in. Exits 0 when every login \
      tried succeeded, else with the status of the first failure (4 rejected, 8 network, ...). \
      The first login on each backend goes alone: when the backend rejects that remembered \
      password, the backend's other accounts are not tried (one wrong backend setting must not \
      wipe every remembered password). With --json: an array of objects with the keys account, action (logged_in, fresh, \
      skipped or failed), expires_at, error and reason (why it was skipped: "no remembered \
      password", or "leased by HOST:PID since T").
      """,
    arguments: [users],
    options: [
      remember, auto, SharedArguments.passwordStdin, force, LoginStale.stale, LoginStale.tag, LoginStale.within,
      LoginStale.jobs, SessionArguments.timeout, HookArguments.noHooks, SharedArguments.accountOption,
    ],
    examples: [
      ("accounts login alice --remember --auto", "log in, remember the password, start as alice"),
      ("printf '%s\\n' \"$PW\" | accounts login ci-bot --password-stdin", "a script logs in"),
      ("accounts login --stale --tag qa --within 15m --jobs 8", "warm every qa session that is gone or ends soon"),
    ],
    handler: run)

  /// The one account to log in (as `picksAccount` would take it), or with --stale the accounts.
  static let users = ArgumentSpec(
    SharedArguments.optionalAccount.name, completion: .account, optional: true, variadic: true,
    help: SharedArguments.optionalAccount.help + "; with --stale, any number of accounts (else every one)")
  static let remember = OptionSpec("remember", help: "keep the password in the keyring for the next login")
  static let auto = OptionSpec("auto", help: "also take the auto-login slot")
  static let force = OptionSpec(
    "force", help: "log in even an account another holder leases (its holder's session may end)")

  /// The account to log in: a USER that names no saved account is a new one (saved by the
  /// login); else the account `pickAccount` chooses.
  static func account(_ invocation: Invocation, _ environment: Environment) throws -> AccountID {
    let book = try environment.index.load()
    if let name = invocation.argument(SharedArguments.optionalAccount), invocation.value(SharedArguments.accountOption) == nil {
      do {
        return try environment.resolveAccount(name, invocation, in: book)
      } catch AccountLookupError.unknown {
        return try environment.newAccountID(name, invocation)
      }
    }
    return try environment.pickAccountOrChoose(invocation, in: book, prompt: "log in as> ")
  }

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    try LoginStale.checkOptions(invocation)
    if invocation.isSet(LoginStale.stale) { return try LoginStale.run(invocation, environment) }
    let id = try account(invocation, environment)
    var flow = try environment.sessionFlow(invocation)
    flow.forced = invocation.isSet(force)
    flow.forcing = .thisCommand
    let session = try flow.logIn(
      id, password: try environment.passwordSource(invocation), remember: invocation.isSet(remember),
      takeSlot: invocation.isSet(auto))
    environment.output.message("\(id): logged in; the session is \(SessionText.validity(session.summary))")
    if invocation.json { environment.output.writeJSON(SessionText.json(session.summary)) }
    environment.runHooks(after: .login, for: id, invocation) { session.token }
  }
}
