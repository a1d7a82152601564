import AccountsContract
import AccountsCore
import AccountsSystem
import AccountsJSON

/// `accounts status [--jobs N]`
enum StatusCommand {
  static let spec = CommandSpec(
    "status",
    summary: "check every account's session with its backend",
    discussion: """
      Proves every saved session with its backend, at most --jobs at once, and prints one line \
      per account: the account, its backend, the outcome and the session's expiry. The session \
      rules apply to each: an expired session is logged in again with the remembered password \
      (nobody is asked for one), a session taken over or rejected is cleared. An expired \
      session of an account another holder leases is cleared but not logged in again: its \
      holder logs it in (outcome leased, not a failure). Accounts without a session are listed, not contacted. --backend checks one backend's accounts. Exits 0 \
      when no check failed, else with the status of the first failure (3 to 9). With --json: \
      an array of objects with keys account, backend, outcome, expires_at and message. On a \
      terminal each row is printed as its check ends, under a "checking N/M" line on stderr \
      that is erased at the end; elsewhere the table comes whole, in the index's order. With \
      --json-lines: the same objects, one per line, each as its check ends (in that order).
      """,
    options: [jobs, jsonLines, SessionArguments.timeout],
    examples: [("accounts status --jobs 8", "check every session, 8 at a time")],
    handler: run)

  static let jobs = SharedArguments.jobs(help: "check at most N accounts at once (default 4)")
  static let jsonLines = OptionSpec(
    "json-lines", help: "print one JSON object per line as each check ends (the objects of --json)")

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let width = invocation.number(jobs) ?? 4
    if invocation.json && invocation.isSet(jsonLines) {
      throw CommandError.usage("--json and --json-lines are two forms of the same output", fix: "give one of them")
    }
    let book = try environment.index.load()
    if let backend = invocation.backend { _ = try environment.config.load().backend(named: backend) }
    let ids = book.accounts.map(\.id).filter { invocation.backend == nil || $0.backend == invocation.backend }
    let terminal = environment.terminal
    let progress = ProgressLine(enabled: environment.showsProgress)
    // On a terminal each row is printed as its check ends; elsewhere the table comes whole, in
    // the index's order.
    let rows =
      invocation.isSet(jsonLines)
      ? StreamedRows(json: progress)
      : !invocation.json && terminal.outputIsTerminal ? StreamedRows(ids, progress: progress) : nil
    try rows?.start()
    if !ids.isEmpty { progress.show("checking 0/\(ids.count)") }
    let entries: [StatusEntry]
    do {
      defer { progress.clear() }
      entries =
        ids.isEmpty
        ? []
        : try environment.sessionFlow(invocation, concurrent: true).status(of: ids, jobs: width) { entry, done in
          rows?.print(entry)
          progress.show("checking \(done)/\(ids.count)")
        }
    }
    if let failed = rows?.failure { throw failed }
    if invocation.json {
      environment.output.writeJSON(.array(entries.map(json)))
    } else if rows == nil {
      environment.output.writeText(TextTable.render([header] + entries.map(row)))
    }
    let failures = entries.compactMap(failure)
    if let first = failures.first {
      let sessions = entries.filter { if case .noSession = $0.outcome { false } else { true } }.count
      throw CommandError(first.status, "\(failures.count) of \(sessions) sessions could not be confirmed; first: \(first.message)")
    }
  }

  static let header = ["ACCOUNT", "BACKEND", "SESSION", "DETAIL"]

  static func row(_ entry: StatusEntry) -> [String] {
    [entry.id.description, entry.id.backend, outcome(entry), detail(entry)]
  }

  /// "valid", "no session", "signed in elsewhere", ...
  static func outcome(_ entry: StatusEntry) -> String {
    switch entry.outcome {
    case .noSession: "no session"
    case .valid(let session): session.origin == .loggedInAgain ? "valid (logged in again)" : "valid"
    case .failed(let failure): name(failure).replacingUnderscores
    case .error: "error"
    }
  }

  static func name(_ failure: SessionFailure) -> String {
    switch failure {
    case .loginRequired, .personRequired, .oneTimeCodeRequired: "login_required"
    case .expired, .expiredAgain: "expired"
    case .signedInElsewhere: "signed_in_elsewhere"
    case .credentialsRejected, .codeRejected, .approvalDenied: "rejected"
    case .upgradeRequired: "upgrade_required"
    case .backendUnavailable, .unexportable: "backend_error"
    case .adapterFailed, .noToken: "adapter_failed"
    case .leased: "leased"
    case .leaseLost: "lease_lost"
    }
  }

  static func detail(_ entry: StatusEntry) -> String {
    switch entry.outcome {
    case .noSession: ""
    case .valid(let session): session.expiresAt.map { "until \(LocalTime.format($0))" } ?? "no expiry given"
    case .failed(let failure): failure.message
    case .error(_, let message): message
    }
  }

  static func failure(_ entry: StatusEntry) -> (status: ExitStatus, message: String)? {
    switch entry.outcome {
    case .noSession, .valid: nil
    case .failed(.leased): nil  // the holder's session, left to it: no failure of this check
    case .failed(let failure): (failure.status, failure.message)
    case .error(let status, let message): (status, message)
    }
  }

  static func json(_ entry: StatusEntry) -> JSONValue {
    var object: JSONObject = ["account": .string(entry.id.description), "backend": .string(entry.id.backend)]
    switch entry.outcome {
    case .noSession:
      object["outcome"] = .string("none")
    case .valid(let session):
      object["outcome"] = .string(session.origin == .loggedInAgain ? "logged_in_again" : "valid")
      object["expires_at"] = session.expiresAt.map { .string($0.iso8601) } ?? .null
    case .failed(let failure):
      object["outcome"] = .string(name(failure))
      object["message"] = .string(failure.message)
    case .error(_, let message):
      object["outcome"] = .string("error")
      object["message"] = .string(message)
    }
    if object["expires_at"] == nil { object["expires_at"] = .null }
    if object["message"] == nil { object["message"] = .null }
    return .object(object)
  }
}

extension String {
  var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
