import AccountsCore
import AccountsContract
import AccountsJSON
import AccountsSystem
import Glibc

/// The process that keeps sessions live under `exec --refresh` and `lease --refresh`
/// (`accounts __token-refresher`, started like the lease keeper: see `HelperProcess`).
///
/// It reads its order (one line of JSON: the accounts, their token files, what it knows of each
/// session; no secret) from its standard input, a pipe whose write end the command holds.
/// Until that pipe ends (the command and whatever it started that holds the descriptor have
/// exited, however) it renews each session at 80 % of its lifetime (`RefreshSchedule`) and
/// checks it with the backend every `check` interval, logging in again when the backend says
/// it expired; after every new session it writes the token to the account's file. A failure
/// is said on stderr (one line, no secret) and tried again after a backoff, unless trying again
/// could not help or would do harm (`RenewalFailure`): then that account is no longer renewed. Then
/// it removes the files and exits. It ignores the signals a terminal or a process group sends:
/// Ctrl-C ends the command, which ends the refresher. Killed itself, it leaves the files in
/// the runtime directory (cleared at logout).
public enum TokenRefresher {
  /// One account to keep live.
  public struct Entry: Equatable, Sendable {
    public var account: AccountID
    public var file: TokenFile
    /// The session whose token the file holds.
    public var generation: String?
    public var loggedInAt: Timestamp?
    public var expiresAt: Timestamp?
    /// The id of the lease the command holds the account by (`lease --refresh`); nil for `exec`.
    public var lease: String?

    public init(_ session: ActiveSession, file: TokenFile, lease: String? = nil) {
      account = session.id
      self.file = file
      generation = session.generation
      loggedInAt = session.loggedInAt
      expiresAt = session.expiresAt
      self.lease = lease
    }

    init(
      account: AccountID, file: TokenFile, generation: String?, loggedInAt: Timestamp?, expiresAt: Timestamp?,
      lease: String?
    ) {
      self.account = account
      self.file = file
      self.generation = generation
      self.loggedInAt = loggedInAt
      self.expiresAt = expiresAt
      self.lease = lease
    }
  }

  /// What the refresher keeps, and how.
  public struct Order: Equatable, Sendable {
    public var entries: [Entry]
    /// How often each session is checked with the backend.
    public var checkMilliseconds: Int64
    /// The command's `--timeout`, for each attempt.
    public var timeoutMilliseconds: Int64

    public init(entries: [Entry], checkMilliseconds: Int64, timeoutMilliseconds: Int64) {
      self.entries = entries
      self.checkMilliseconds = checkMilliseconds
      self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The lease id of each account held by a lease (`SessionFlow.heldLeases`).
    public var heldLeases: [AccountID: String] {
      Dictionary(entries.compactMap { entry in entry.lease.map { (entry.account, $0) } }) { first, _ in first }
    }

    /// One line of JSON.
    public func encoded() -> [UInt8] {
      let accounts: [JSONValue] = entries.map { entry in
        var object: JSONObject = [
          "user": .string(entry.account.user), "backend": .string(entry.account.backend),
          "file": .string(entry.file.path),
        ]
        if let generation = entry.generation { object["generation"] = .string(generation) }
        if let at = entry.loggedInAt { object["logged_in_at"] = .number(JSONNumber(at.secondsSince1970)) }
        if let at = entry.expiresAt { object["expires_at"] = .number(JSONNumber(at.secondsSince1970)) }
        if let lease = entry.lease { object["lease"] = .string(lease) }
        return .object(object)
      }
      let object: JSONObject = [
        "accounts": .array(accounts), "check_ms": .number(JSONNumber(checkMilliseconds)),
        "timeout_ms": .number(JSONNumber(timeoutMilliseconds)),
      ]
      return Array((JSON.serialize(.object(object), pretty: false) + "\n").utf8)
    }

    public static func decode(_ bytes: [UInt8]) -> Order? {
      guard let reader = try? JSONReader(JSON.parse(bytes)),
        let check = try? reader.int64("check_ms"), check > 0,
        let timeout = try? reader.int64("timeout_ms"), timeout > 0,
        let accounts = try? reader.array("accounts"), !accounts.isEmpty
      else { return nil }
      var entries: [Entry] = []
      for account in accounts {
        do {
          let file = try account.string("file")
          guard file.hasPrefix("/") else { return nil }
          entries.append(
            Entry(
              account: AccountID(user: try account.string("user"), backend: try account.string("backend")),
              file: TokenFile(path: file), generation: try account.optionalString("generation"),
              loggedInAt: try account.optionalInt64("logged_in_at").map(Timestamp.init(secondsSince1970:)),
              expiresAt: try account.optionalInt64("expires_at").map(Timestamp.init(secondsSince1970:)),
              lease: try account.optionalString("lease")))
        } catch {
          return nil
        }
      }
      return Order(entries: entries, checkMilliseconds: check, timeoutMilliseconds: timeout)
    }
  }

  /// Reads the order on `input` and keeps its sessions until `input` ends, with the flow
  /// `makeFlow` builds for it; messages go to `say`. Returns the exit status.
  public static func run(
    input: FileDescriptor, makeFlow: (Order) throws -> SessionFlow, say: @escaping (String) -> Void
  ) -> Int32 {
    ignoreTerminalAndGroupSignals()
    guard let line = input.readFirstLine(), let order = Order.decode(line) else {
      say("accounts: token refresher: no order, or a malformed one, on standard input")
      return ExitStatus.usage.rawValue
    }
    defer { order.entries.forEach { $0.file.remove() } }
    let flow: SessionFlow
    do {
      flow = try makeFlow(order)
    } catch {
      say("accounts: --refresh stops: \((error as? any UserFacingError)?.message ?? "\(error)")")
      waitForEnd(input, until: nil)
      return ExitStatus.failure.rawValue
    }
    var kept = order.entries.map { Kept($0, checkSeconds: Double(order.checkMilliseconds) / 1000) }
    while true {
      let due = kept.compactMap(\.due).min()
      if waitForEnd(input, until: due) { return 0 }
      let now = wallClock()
      for index in kept.indices where kept[index].due.map({ $0 <= now }) ?? false {
        kept[index].attempt(flow, now: now, say: say)
      }
    }
  }

  /// Waits until `input` ends (true) or the wall clock reaches `deadline` (false); for ever
  /// without one. Bytes written to it are ignored.
  @discardableResult
  private static func waitForEnd(_ input: FileDescriptor, until deadline: Double?) -> Bool {
    while true {
      var wait: Int32 = -1
      if let deadline {
        let left = deadline - wallClock()
        if left <= 0 { return false }
        wait = Int32(min(left * 1000 + 1, Double(Int32.max)))
      }
      if input.awaitEnd(milliseconds: wait) { return true }
    }
  }

  /// The wall clock in seconds since 1970, with its fraction (sessions end by the wall clock).
  static func wallClock() -> Double { Double(wallClockMilliseconds()) / 1000 }
}

extension TokenRefresher {
  /// One account's session as the refresher follows it.
  struct Kept {
    var entry: Entry
    let checkSeconds: Double
    var nextCheck: Double
    /// No attempt before this (a second after the last success: a backend that hands out
    /// sessions of a second is not asked again at once).
    var notBefore = 0.0
    var failures = 0
    var retryAt: Double?
    /// Taken over by another login: not logged in again (SPEC §4).
    var stopped = false

    init(_ entry: Entry, checkSeconds: Double) {
      self.entry = entry
      self.checkSeconds = checkSeconds
      nextCheck = TokenRefresher.wallClock() + checkSeconds
    }

    var renewalTime: Double? { RefreshSchedule.renewalTime(loggedInAt: entry.loggedInAt, expiresAt: entry.expiresAt) }

    /// When the next attempt is due; nil once stopped.
    var due: Double? {
      guard !stopped else { return nil }
      return max(retryAt ?? min(renewalTime ?? .infinity, nextCheck), notBefore)
    }

    /// A renewal when its time has come, else a check; the file written when the session is a
    /// new one.
    mutating func attempt(_ flow: SessionFlow, now: Double, say: (String) -> Void) {
      let id = entry.account
      do {
        let renewing = renewalTime.map { $0 <= now } ?? false
        let session = try renewing ? flow.renew(id, replacing: entry.generation, now: now) : flow.checkedSession(id)
        if session.generation != entry.generation || session.generation == nil {
          try entry.file.write(session.token)
        }
        if failures > 0 { say("accounts: --refresh: \(id) is live again") }
        entry = Entry(session, file: entry.file, lease: entry.lease)
        failures = 0
        retryAt = nil
        let done = TokenRefresher.wallClock()
        notBefore = done + 1
        nextCheck = done + checkSeconds
      } catch {
        let failure = RenewalFailure(error, id, flow, leased: entry.lease != nil)
        if let last = failure.lastWords {
          stopped = true
          say("accounts: --refresh: \(id)\(last)")
          return
        }
        failures += 1
        let left = entry.expiresAt.map { Double($0.secondsSince1970) - now }
        let wait = RefreshSchedule.backoff(failures: failures, secondsLeft: left)
        retryAt = TokenRefresher.wallClock() + wait
        let seconds = Int(wait.rounded(.up))
        say("accounts: --refresh: cannot renew the session of \(id): \(failure.reason); trying again in \(seconds) s")
      }
    }
  }
}

extension TokenRefresher {
  /// Writes each session's token file, starts the refresher (`accounts COMMAND`) and hands it
  /// the write end of its pipe to the command this process becomes (kept across `exec`). `leases`: the id of the
  /// lease each account is held by (`lease --refresh`), none for `exec`. Returns the files, in
  /// the order of `sessions`; on a failure none is left.
  public static func start(
    _ sessions: [ActiveSession], leases: [AccountID: String], checkMilliseconds: Int64, timeout: Double,
    command: String, environment: [String: String]
  ) throws -> [TokenFile] {
    var files: [TokenFile] = []
    do {
      for session in sessions {
        let file = try TokenFile.create(environment: environment)
        files.append(file)
        try file.write(session.token)
      }
      let order = TokenRefresher.Order(
        entries: zip(sessions, files).map { TokenRefresher.Entry($0, file: $1, lease: leases[$0.id]) },
        checkMilliseconds: checkMilliseconds, timeoutMilliseconds: Int64(timeout * 1000))
      let pipe = try HelperProcess.launch(command, what: "the token refresher", order: order.encoded())
      guard HelperProcess.awaitLaunched() else {
        throw CommandError(
          .failure, "cannot start the token refresher: it could not fork",
          fix: "check the limit on processes (ulimit -u, the pids cgroup)")
      }
      do throws(Errno) {
        try pipe.setInheritedAcrossExec(true)
      } catch {
        throw CommandError(.failure, "cannot start the token refresher: \(error)")
      }
    } catch {
      files.forEach { $0.remove() }
      throw error
    }
    return files
  }
}
