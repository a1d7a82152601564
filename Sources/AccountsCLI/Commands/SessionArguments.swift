import AccountsContract
import AccountsCore
import AccountsSystem
import AccountsJSON
import AccountsServices
import SecretMemory

/// What the session commands share: `--timeout`, the flow they run on, where a password comes
/// from, and how a session is shown.
enum SessionArguments {
  static let timeout = OptionSpec(
    "timeout", value: "SECONDS", kind: .seconds,
    help: "give up on the backend after SECONDS, all of the command's calls together (status and login --stale: per account; "
      + "default: ACCOUNTS_NETWORK_TIMEOUT, else 20)")
}

extension Environment {
  /// The session flow for one command: the ledger over a keyring reached one call at a time,
  /// the adapter host, and the command's network deadline. On a terminal, a call that waits
  /// for its backend more than a second says so on stderr, unless the command checks several
  /// accounts at once (`concurrent`: `status`, `login --stale`), which show their own progress.
  func sessionFlow(_ invocation: Invocation, concurrent: Bool = false) throws -> SessionFlow {
    let output = output
    return try sessionFlow(
      timeout: try timeout(invocation), notice: { output.message($0) },
      announcesWaits: showsProgress && !concurrent)
  }

  /// The session flow with `timeout` for the backend, telling progress to `notice`.
  func sessionFlow(timeout: Double, notice: @escaping (String) -> Void, announcesWaits: Bool = false) throws -> SessionFlow {
    let ledger = ledger(secrets: { [unowned self] in try self.secretStore() })
    try ledger.adoptSecretServiceIfAsked()
    let host: () throws -> any AdapterHosting =
      announcesWaits
      ? { [unowned self] in NoticingAdapterHost(try self.adapterHost()) } : { [unowned self] in try self.adapterHost() }
    // A login waits for another command's login of the same account: its two deadlines at most.
    let locks = SessionLocks(index: paths.index, wait: 2 * timeout + 10)
    var flow = SessionFlow(
      ledger: ledger, host: host, searchPath: adapterSearchPath, timeout: timeout, locks: locks, now: now,
      notice: notice, oneTimeCodes: oneTimeCodeSource())
    flow.leases = StoreLeaseLookup { [unowned self] in try self.leaseStores() }
    flow.hostNames = hostNames
    (flow.heldLeases, flow.presentedLeases) = try leaseClaims()
    flow.person = personChannel()
    return flow
  }

  /// Before accounts are forgotten (`remove`, `clear`, `backend remove --force`): their
  /// refresh tokens revoked at their providers, the warnings said (`SessionFlow.revokeRefreshTokens`).
  func revokeRefreshTokens(of ids: [AccountID]) {
    let wanted = Set(ids)
    guard (try? index.load())?.accounts.contains(where: { $0.token?.refreshable == true && wanted.contains($0.id) }) == true,
      let flow = try? sessionFlow(timeout: networkTimeout(), notice: { _ in })
    else { return }
    for warning in flow.revokeRefreshTokens(of: ids) { output.warning(warning) }
  }

  /// Where a login a person approves elsewhere (the device flow) tells them what to do: stderr,
  /// when a person sits at the terminal (stdin and stderr both are one); nil otherwise.
  func personChannel() -> PersonChannel? {
    guard terminal.canPrompt, terminal.errorIsTerminal else { return nil }
    // Shown from the adapter host's thread while the command's own waits: one writer at a time.
    nonisolated(unsafe) let output = output
    return PersonChannel { message in
      let minutes = (message.expiresIn + 59) / 60
      let within = minutes > 1 ? "\(minutes) minutes" : "a minute"
      if message.link.isEmpty {
        output.request("to log in \(message.account): \(message.text)")
      } else {
        output.request("to log in \(message.account), open \(message.link)")
        output.request("  and \(message.text)")
      }
      output.request("waiting for the approval (within \(within); Ctrl-C stops)...")
    }
  }

  /// The lease this command acts for, as `accounts lease` hands it to its command
  /// (ACCOUNTS_LEASE_ID and ACCOUNTS_LEASED) and a detached lease's worker is given it
  /// (ACCOUNTS_LEASE_ID alone): the accounts it holds by that lease, and the id.
  func leaseClaims() throws(CommandError) -> (held: [AccountID: String], presented: Set<String>) {
    guard let lease = variables["ACCOUNTS_LEASE_ID"], !lease.isEmpty else { return ([:], []) }
    guard LeaseID.isValid(lease) else {
      throw .usage(
        "ACCOUNTS_LEASE_ID='\(Names.printable(lease, limit: 40))' is not a lease id",
        fix: "set it to the id `accounts lease` printed (16 letters and digits), or unset it")
    }
    var held: [AccountID: String] = [:]
    for line in (variables["ACCOUNTS_LEASED"] ?? "").split(separator: "\n") {
      if let id = AccountID(parsing: String(line)) { held[id] = lease }
    }
    return (held, [lease])
  }

  /// The code from the account's TOTP seed when one is kept (`TOTP.loginCode`, at the wall
  /// clock read to the millisecond: the flow's `now` has whole seconds only), else the
  /// no-echo prompt when there is a terminal to ask on; a typed answer that is not a code is a
  /// usage error (exit 2), never asked again.
  func oneTimeCodeSource() -> OneTimeCodeSource {
    let terminal = terminal
    return OneTimeCodeSource(
      stored: { id, ledger, _ in
        let book = try ledger.index.load()
        guard book[id]?.otp == true, let seed = try ledger.claimedOTPSeed(of: id, in: book) else { return nil }
        let now = wallClockMilliseconds()
        var code = Array(try TOTP.loginCode(seed, atMilliseconds: now).utf8)
        return SecretBytes(consuming: &code)
      },
      ask: { id in
        guard terminal.canPrompt else { return nil }
        return try OneTimeCode.checked(terminal.promptSecret("one-time code for \(id): ", what: "one-time code"))
      })
  }

  /// `--timeout`, else ACCOUNTS_NETWORK_TIMEOUT, else 20 s.
  func timeout(_ invocation: Invocation) throws(CommandError) -> Double {
    if let seconds = invocation.seconds(SessionArguments.timeout) { return seconds }
    return try networkTimeout()
  }

  /// `--password-stdin`, else the remembered password, else the no-echo prompt when there is
  /// a terminal to ask on (never a hang without one).
  func passwordSource(_ invocation: Invocation) throws -> PasswordSource {
    if invocation.isSet(SharedArguments.passwordStdin) {
      return .given(try terminal.readSecretFromStandardInput(what: "password"))
    }
    let terminal = terminal
    return .rememberedOrAsk { id in
      guard terminal.canPrompt else { return nil }
      return try terminal.promptSecret("Password for \(id): ", what: "password")
    }
  }
}

/// How the session commands describe a session.
enum SessionText {
  /// "valid until 2026-11-24 10:00", "valid (no expiry given)"
  static func validity(_ session: SessionSummary) -> String {
    session.expiresAt.map { "valid until \(LocalTime.format($0))" } ?? "valid (the backend gave no expiry)"
  }
}

extension SessionText {
  /// `--json` of `login` and `switch`: the account, the session's expiry and its values (never
  /// the token: `accounts token --json` prints that).
  static func json(_ session: SessionSummary, reused: Bool? = nil) -> JSONValue {
    var values = JSONObject()
    for key in session.sessionValues.keys.sorted() { values[key] = .string(session.sessionValues[key]!) }
    var object: JSONObject = [
      "account": .string(session.id.description),
      "expires_at": session.expiresAt.map { .string($0.iso8601) } ?? .null,
      "session": .object(values),
    ]
    if let reused { object["reused"] = .bool(reused) }
    return .object(object)
  }
}

extension Environment {
  /// The lease stores as this command opens them (`LeaseStoreChoice` from the configuration and
  /// ACCOUNTS_LEASE_STORE).
  func leaseStores(
    heldTTLMilliseconds: Int64 = LeaseStores.defaultHeldTTLMilliseconds, readsPasswords: Bool = true
  ) throws -> LeaseStores {
    LeaseStores(
      choice: LeaseStoreChoice(configuration: try config.load(), environment: variables), variables: variables,
      ledger: ledger, networkTimeout: try networkTimeout(), heldTTLMilliseconds: heldTTLMilliseconds,
      readsPasswords: readsPasswords, launchKeeper: LeaseKeeperCommand.launch, warn: { [output] in output.warning($0) })
  }
}
