import AccountsCore

/// `accounts login [USER] [--remember] [--auto] [--password-stdin]`
enum LoginCommand {
  static let remember = OptionSpec("remember", help: "keep the password in the keyring for the next login")
  static let auto = OptionSpec("auto", help: "also take the auto-login slot")

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

      When nothing names an account (no USER, --account, ACCOUNTS_ACCOUNT or slot holder), \
      on a terminal the picker of `accounts switch` chooses one.
      """,
    picksAccount: true,
    options: [remember, auto, SharedArguments.passwordStdin, SessionArguments.timeout, HookArguments.noHooks],
    examples: [
      ("accounts login alice --remember --auto", "log in, remember the password, start as alice"),
      ("printf '%s\\n' \"$PW\" | accounts login ci-bot --password-stdin", "a script logs in"),
    ],
    handler: run)

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
    let id = try account(invocation, environment)
    let flow = try environment.sessionFlow(invocation)
    let session = try flow.logIn(
      id, password: try environment.passwordSource(invocation), remember: invocation.isSet(remember),
      takeSlot: invocation.isSet(auto))
    environment.output.message("\(id): logged in; the session is \(SessionText.validity(session.summary))")
    if invocation.json { environment.output.writeJSON(SessionText.json(session.summary)) }
    environment.runHooks(after: .login, for: id, invocation) { session.token }
  }
}
