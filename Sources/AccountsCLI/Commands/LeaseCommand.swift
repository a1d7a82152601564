import AccountsContract
import AccountsCore
import AccountsJSON
import AccountsServices
import AccountsSystem
import Glibc

/// `accounts lease`: accounts checked out to one holder at a time, so that parallel test
/// workers never log each other out.
enum LeaseCommand {
  static let spec = CommandSpec(
    "lease",
    summary: "check accounts out to one holder at a time (parallel test runs)",
    discussion: """
      Takes COUNT free accounts (1 by default) from the named ones or from those with every \
      --tag, makes sure each has a live session (proved with the backend's session check when \
      it has one; when the session expired, its refresh token renews it, and when it is gone or \
      was taken over, the remembered password logs in again: under a lease nobody else of the \
      pool uses the account), and \
      holds them: no other lease on this machine takes them meanwhile. An account that cannot \
      log in (no refresh token nor remembered password, a rejected one, a backend that fails) is skipped, said \
      on stderr, and another is taken.

      With -- CMD: replaces itself with CMD, as `accounts exec` does, with ACCOUNTS_ACCOUNT, \
      ACCOUNTS_TOKEN and ACCOUNTS_USER_ID of the first account, ACCOUNTS_LEASED (every leased \
      account, one per line), ACCOUNTS_LEASE_FENCE (each one's fencing number, in the same \
      order) and ACCOUNTS_LEASE_ID. The lease lasts as long as CMD and whatever it started \
      that still holds its descriptors, and ends however they end, SIGKILL included. Exit \
      status: CMD's.

      Without CMD: a detached lease for --ttl; prints its id, which `accounts release ID` \
      ends early. With --json: {"lease": ID, "accounts": [...], "expires_at": ISO-8601, \
      "fence": N (the first account's), "fences": [...]}.

      Every lease of an account gets a fencing number greater than any before it, so a test \
      framework can tell a stale holder: one more than the last, or the taker's clock in \
      milliseconds since 1970 when that is more, so it grows even after the store lost its \
      counters (this machine's directory cleared at logout or reboot, a Redis restarted or \
      flushed); never more than 2^53 - 1, which every JSON reader reads exactly. When not enough accounts are free within --wait: \
      exit 10, naming who holds them. Leases are kept in $XDG_RUNTIME_DIR/accounts/leases \
      (without it, /run/user/UID when that is yours; else in the state directory): every worker \
      of one pool must see the same directory.

      Across machines (CI runners), leases are kept in Redis: the backend's setting \
      lease_store, or ACCOUNTS_LEASE_STORE, names it (redis://[USER@]HOST[:PORT][/DB] or \
      unix:///PATH; the two naming different stores is refused, naming both); its password is the backend's secret setting lease_store_password. A \
      lease there is a key set only when absent, with an expiry: while CMD runs, a keeper \
      process renews it every third of --ttl (30s by default) and deletes it when CMD and \
      whatever holds its descriptors have exited; a holder killed with SIGKILL frees its \
      accounts within one ttl, and a keeper that dies is flagged by `accounts leases` \
      (keeper overdue) before the ttl runs out. A Redis that may lose its keys (no \
      appendonly, an eviction policy) is warned about. An account whose keys there accounts \
      cannot read (another type, a value longer than a record, a fence counter that is none \
      or at 2^53 - 1) is skipped, warned about with the key and the fix, and others are taken. \
      A store that cannot be reached, answers garbage (a reply over 16 MiB or 131072 elements \
      included), or does not answer all that one try asks within ACCOUNTS_NETWORK_TIMEOUT: \
      exit 8, CMD not run. Losing it while CMD runs is said on stderr, and CMD keeps running.

      A leased account's session is its holder's: other commands never log it in or out \
      (`login` and `logout` refuse it unless --force; `login --stale` skips it). A holder whose \
      lease was lost (its key expired, or another holder's lease is there now) logs the account \
      in no more: its refresher stops at once, saying so, and leaves the account to the new \
      holder.

      \(SessionRefresh.discussion) Under a lease every leased account is kept live: \
      ACCOUNTS_TOKEN_FILE is the first one's file, ACCOUNTS_TOKEN_FILES has each one's, one per \
      line in the order of ACCOUNTS_LEASED, and a session taken over is logged in again. An \
      account with neither a refresh token nor a remembered password (or a kept TOTP seed its \
      backend needs) is skipped, \
      like one that cannot log in.
      """,
    arguments: [users, command],
    options: [tag, count, wait, ttl, SessionArguments.timeout, SessionRefresh.refresh, SessionRefresh.check],
    examples: [
      ("accounts lease --tag qa -- ./run-tests.sh", "run the tests as one free qa account"),
      ("accounts lease --tag qa --count 4 --wait 10m -- ./shard.sh", "four accounts, waiting up to 10 minutes"),
      ("accounts lease --tag qa --ttl 30m --json", "a lease for a runner that manages its own processes"),
      ("accounts lease --tag qa --refresh -- ./suite.sh", "$ACCOUNTS_TOKEN_FILE holds a live token all along"),
    ],
    handler: run)

  static let users = ArgumentSpec(
    "USER", completion: .account, optional: true, variadic: true, help: "lease from these accounts (instead of --tag)")
  static let command = ArgumentSpec.trailingCommand(
    optional: true, help: "the command to run while the lease lasts; without one, a detached lease (--ttl)")
  static let tag = SharedArguments.tag(help: "lease from the accounts with this tag; repeated, from those with every one")
  static let count = OptionSpec(
    "count", value: "N", kind: .number(1...1000, example: "--count 4"),
    help: "lease N accounts together, all or none (default 1)")
  static let wait = OptionSpec(
    "wait", value: "DURATION", kind: .duration(forms: ValueKind.durationForms),
    help: "wait up to DURATION for enough free accounts (e.g. 30s, 10m, 1h30m; default 0: only a moment's contention)")
  static let ttl = OptionSpec(
    "ttl", value: "DURATION", kind: .duration(forms: ValueKind.durationForms),
    help: "without CMD (required then): the lease ends after DURATION unless released first; "
      + "with CMD and a Redis store: how soon a holder killed with SIGKILL frees its accounts (default 30s)")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let request = try LeaseRequest(invocation, environment)
    let store = try environment.leaseStores(heldTTLMilliseconds: request.heldTTLMilliseconds).store(for: request.candidates)
    let flow = try environment.sessionFlow(invocation)
    // Before any login: token files with no safe place make every account useless.
    try request.refresh?.prepareDirectory(environment)
    let acquisition = LeaseAcquisition(
      candidates: request.candidates, count: request.count, waitSeconds: Double(request.waitMilliseconds) / 1000,
      heldTTLSeconds: Double(request.heldTTLMilliseconds) / 1000)
    let (grant, sessions) = try acquisition.acquire(
      from: store, holder: .current(), flow: flow,
      check: { try request.refresh?.requireRenewable($0, in: try environment.index.load(), flow) },
      notice: { environment.output.failure($0) })
    if let ttl = request.ttlSeconds {
      return try hand(try store.detach(grant, ttl: ttl, now: environment.now()), sessions, request, invocation, environment)
    }
    return try hand(grant, sessions, request, invocation, environment)
  }

  /// The lease to its user: CMD with the sessions in its environment, or the detached lease's id.
  private static func hand(
    _ grant: LeaseGrant, _ sessions: [ActiveSession], _ request: LeaseRequest, _ invocation: Invocation,
    _ environment: Environment
  ) throws {
    guard !request.command.isEmpty else {
      let expiry = grant.records.first?.expiresAt
      if invocation.json {
        environment.output.writeJSON(
          .object([
            "lease": .string(grant.lease), "accounts": .array(grant.accounts.map { .string($0.description) }),
            "expires_at": expiry.map { .string($0.iso8601) } ?? .null,
            "fence": .number(JSONNumber(Int64(grant.records.first?.fence ?? 0))),
            "fences": .array(grant.records.map { .number(JSONNumber(Int64($0.fence))) }),
          ]))
      } else {
        environment.output.write(grant.lease + "\n")
        let until = expiry.map { " until \(LocalTime.format($0))" } ?? ""
        environment.output.message(
          "leased \(grant.accounts.map(\.description).joined(separator: ", "))\(until); "
            + "end it early with `accounts release \(grant.lease)`")
      }
      return
    }
    // A shared store's keeper has forked off by now (it was started when the lease was taken).
    // Without it nobody renews the lease, which would end under CMD: CMD does not run.
    guard HelperProcess.awaitLaunched() else {
      let accounts = grant.accounts.map(\.description).joined(separator: ", ")
      throw CommandError(
        .failure, "cannot start the lease keeper of \(accounts): it could not fork",
        fix: "check the limit on processes (ulimit -u, the pids cgroup); the lease ends by itself within its ttl")
    }
    var variables = SessionVariables(sessions[0])
    try variables.checkCarriable()
    // Started before the token is in this process's environment, which the refresher inherits,
    // and before the lease's descriptors are, which it must not hold.
    let timeout = try environment.timeout(invocation)
    variables.tokenFiles = try request.refresh?.start(sessions, leases: held(grant), timeout: timeout, environment) ?? []
    variables.listsTokenFiles = true
    variables.exportToProcess()
    setenv("ACCOUNTS_LEASED", grant.accounts.map(\.description).joined(separator: "\n"), 1)
    setenv("ACCOUNTS_LEASE_FENCE", grant.records.map { String($0.fence) }.joined(separator: "\n"), 1)
    setenv("ACCOUNTS_LEASE_ID", grant.lease, 1)
    do throws(Errno) {
      try grant.inheritAcrossExec()
    } catch {
      throw CommandError(.failure, "cannot hand the lease to \(Names.printable(request.command[0])): \(error)")
    }
    var argv: [UnsafeMutablePointer<CChar>?] = request.command.map { strdup($0) } + [nil]
    AdapterStreams.restore()
    execvp(request.command[0], &argv)
    let code = errno
    SessionVariables.withdrawToken()
    variables.tokenFiles.forEach { $0.remove() }
    throw ExecCommand.cannotRun(request.command[0], errno: code, fix: "check the command name and PATH")
  }

  /// The lease id of each account `grant` holds.
  private static func held(_ grant: LeaseGrant) -> [AccountID: String] {
    Dictionary(grant.records.map { ($0.account, $0.lease) }) { first, _ in first }
  }
}
