import AccountsContract
import AccountsCore
import AccountsSystem
import AccountsJSON

/// `accounts login --stale [USER...] [--tag TAG]... [--within DURATION] [--jobs N]`: pre-warms
/// every chosen session that is gone or about to end.
enum LoginStale {
  static let stale = OptionSpec(
    "stale", help: "log in again every chosen account whose session is gone or ends within --within")
  static let tag = SharedArguments.tag(help: "with --stale: the accounts with this tag; repeated, those with every one")
  static let within = OptionSpec(
    "within", value: "DURATION", kind: .duration(forms: ValueKind.durationForms), help: "with --stale: also sessions that end within DURATION (default 10m)")
  static let jobs = SharedArguments.jobs(help: "with --stale: at most N logins at once (default 4)")

  /// The options only `--stale` takes, and the ones of a single login it refuses.
  static let ownOptions = [tag, within, jobs]
  static let singleLoginOptions = [LoginCommand.remember, LoginCommand.auto, SharedArguments.passwordStdin]

  /// The usage errors of options given to the wrong kind of login.
  static func checkOptions(_ invocation: Invocation) throws(CommandError) {
    if invocation.isSet(stale) {
      if let option = (singleLoginOptions + [SharedArguments.accountOption]).first(where: invocation.isSet) {
        throw .usage(
          "--stale logs in with remembered passwords only; --\(option.long) is for one login",
          fix: "drop --\(option.long), or log in one account with `accounts login USER --\(option.long)`")
      }
    } else {
      if let option = ownOptions.first(where: invocation.isSet) {
        throw .usage(
          "--\(option.long) is an option of `accounts login --stale`", fix: "add --stale, or drop --\(option.long)")
      }
      if invocation.arguments(LoginCommand.users).count > 1 {
        throw .usage("login logs in one account", fix: "name one USER, or log in several with --stale")
      }
    }
  }

  static func run(_ invocation: Invocation, _ environment: Environment) throws {
    let width = invocation.number(jobs) ?? 4
    let milliseconds = invocation.milliseconds(within) ?? 600_000
    let ids = try chosen(invocation, environment)
    var flow = try environment.sessionFlow(invocation, concurrent: true)
    flow.forced = invocation.isSet(LoginCommand.force)
    flow.forcing = .thisCommand
    // Each account's line as its login ends, under a "logging in N/M" line on a terminal.
    let lines = StreamedLines(environment.output, progress: ProgressLine(enabled: environment.showsProgress))
    let entries: [StaleLoginEntry]
    do {
      defer { lines.progress.clear() }
      if !ids.isEmpty { lines.progress.show(progressText(done: 0, of: ids.count)) }
      entries =
        ids.isEmpty
        ? []
        : flow.logInStale(ids, withinSeconds: (milliseconds + 999) / 1000, jobs: width) { entry, done in
          lines.say(entry)
          lines.progress.show(progressText(done: done, of: ids.count))
        }
    }
    if invocation.json { environment.output.writeJSON(.array(entries.map(json))) }
    let count = { (action: String) in entries.count { name($0.outcome) == action } }
    environment.output.message(
      "logged in \(count("logged_in")), fresh \(count("fresh")), skipped \(count("skipped")), failed \(count("failed"))"
    )
    for entry in entries {
      if case .loggedIn(let session) = entry.outcome {
        environment.runHooks(after: .login, for: entry.id, invocation) { session.token }
      }
    }
    for entry in entries { if case .failed(let status, _) = entry.outcome { throw QuietFailure(status: status) } }
  }

  /// The named accounts, else every account with each --tag, else every account; narrowed by
  /// --backend (`AccountSelection`).
  static func chosen(_ invocation: Invocation, _ environment: Environment) throws -> [AccountID] {
    let selection = try AccountSelection(
      names: invocation.arguments(LoginCommand.users), tags: invocation.values(tag), backend: invocation.backend)
    return try selection.ids(
      in: try environment.index.load(), configuration: try environment.config.load(), everyAccount: true,
      command: "login --stale")
  }

  /// "logging in 3/30": how many of the chosen accounts have ended.
  static func progressText(done: Int, of total: Int) -> String { "logging in \(done)/\(total)" }

  /// The lines of `login --stale` on stderr, one per account as it ends: a failure's line is
  /// shown under --quiet too, the others are status lines. Told one entry at a time (under the
  /// results' lock of `logInStale`), so the output is used by one thread at a time.
  final class StreamedLines: @unchecked Sendable {
    private let output: Output
    let progress: ProgressLine

    init(_ output: Output, progress: ProgressLine) {
      self.output = output
      self.progress = progress
    }

    func say(_ entry: StaleLoginEntry) {
      let text = "\(entry.id): \(line(entry.outcome))"
      progress.around {
        if case .failed = entry.outcome { output.failure(text) } else { output.message(text) }
      }
    }
  }

  /// logged_in, fresh, skipped or failed: the `action` of --json.
  static func name(_ outcome: StaleLoginEntry.Outcome) -> String {
    switch outcome {
    case .loggedIn: "logged_in"
    case .fresh: "fresh"
    case .skipped, .leased: "skipped"
    case .failed: "failed"
    }
  }

  static func line(_ outcome: StaleLoginEntry.Outcome) -> String {
    switch outcome {
    case .loggedIn(let session):
      session.expiresAt.map { "logged in until \(LocalTime.format($0))" } ?? "logged in (the backend gave no expiry)"
    case .fresh(let until):
      (until.map { "fresh until \(LocalTime.format($0))" } ?? "fresh (the backend gave no expiry)") + ", left alone"
    case .skipped: "skipped: no remembered password"
    case .leased(let record): "skipped: \(leaseText(record)); only its holder logs it in"
    case .failed(_, let message): "failed: \(message)"
    }
  }

  /// "leased by HOST:PID since T"
  static func leaseText(_ record: LeaseRecord) -> String {
    "leased by \(record.holder) since \(LocalTime.format(record.since))"
  }

  static func json(_ entry: StaleLoginEntry) -> JSONValue {
    var object: JSONObject = [
      "account": .string(entry.id.description), "action": .string(name(entry.outcome)), "expires_at": .null,
      "error": .null, "reason": .null,
    ]
    switch entry.outcome {
    case .loggedIn(let session): object["expires_at"] = session.expiresAt.map { .string($0.iso8601) } ?? .null
    case .fresh(let until): object["expires_at"] = until.map { .string($0.iso8601) } ?? .null
    case .skipped: object["reason"] = .string("no remembered password")
    case .leased(let record): object["reason"] = .string(leaseText(record))
    case .failed(_, let message): object["error"] = .string(message)
    }
    return .object(object)
  }
}
