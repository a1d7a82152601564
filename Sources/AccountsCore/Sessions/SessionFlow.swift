import AccountsContract
import AccountsSystem
import SecretMemory
/// Where a login's password comes from.
public enum PasswordSource: Sendable {
  /// Given for this command (`--password-stdin`).
  case given(SecretBytes)
  /// The remembered password, else `ask` (which answers nil when nobody can be asked: no
  /// terminal).
  case rememberedOrAsk(@Sendable (AccountID) throws -> SecretBytes?)
  /// The remembered password only; never asks (`status`).
  case rememberedOnly
}

/// What a session is, without its token.
public struct SessionSummary: Sendable {
  public var id: AccountID
  public var sessionValues: [String: String]
  public var expiresAt: Timestamp?
}

/// A session the flow vouches for.
public struct ActiveSession: Sendable {
  public var summary: SessionSummary { SessionSummary(id: id, sessionValues: sessionValues, expiresAt: expiresAt) }

  public enum Origin: Sendable, Equatable {
    /// The stored token, trusted by its expiry (no network).
    case stored
    /// The stored token, and the backend confirmed it (CHECK).
    case proved
    /// A login of this command.
    case loggedIn
    /// The one automatic login after the stored session expired.
    case loggedInAgain
  }

  public var id: AccountID
  public var token: SecretBytes
  public var sessionValues: [String: String]
  public var expiresAt: Timestamp?
  public var origin: Origin
  /// Which session this is, to tell a verdict on it from one on a newer session.
  var observed: ObservedSession
}

/// The one way commands use sessions: SPEC §4 decided by `SessionRules`, carried out by the
/// ledger, with the backend reached through the adapter host. Every session command (`login`,
/// `switch`, `current --check`, `token`, `exec`, `request`, `status`, `logout`, `backend test`)
/// goes through it, so a verdict means the same in all of them, and the automatic re-login
/// happens at most once per command. The entry points are in SessionFlow+Commands.swift, `status`
/// in SessionFlow+Status.swift, the steps they share in SessionFlow+Steps.swift and backend
/// preparation in SessionFlow+Backends.swift.
public struct SessionFlow: @unchecked Sendable {
  // @unchecked: the ledger's secret store makes one call at a time whatever the thread (the
  // `SecretStore` port's rule), the host is documented thread-safe, and the rest is immutable.
  let ledger: Ledger
  /// The adapter host, loaded on the first operation (`switch` and `token` need none) by the
  /// environment's one cache, which any thread may ask.
  let host: () throws -> any AdapterHosting
  let searchPath: AdapterSearchPath
  /// Seconds the command's adapter operations may take together, network included (`--timeout`).
  let timeout: Double
  /// What is left of `timeout`: shared by every operation of the command (of one account, in
  /// `status`).
  var budget: OperationBudget
  let now: () -> Timestamp
  /// Progress a person may want to know ("logging in again"), for stderr.
  var notice: (String) -> Void
  /// Names the ASCII form of a non-ASCII base_url host when a backend's settings are refused.
  public var hostNames: (any HostNameConversion)?
  let prepared = PreparedBackends()
  /// One login at a time per account, across processes.
  public let locks: any SessionLocking
  /// Who holds each account's lease (SPEC §4's lease rows): asked before every login and
  /// logout, and when a verdict would log in again.
  public var leases: any LeaseLookup = NoLeases()
  /// The leases this flow's command holds: each account's lease id (`accounts lease`, its
  /// command, and their refreshers).
  public var heldLeases: [AccountID: String] = [:]
  /// Lease ids this flow's command acts for without knowing their accounts (a detached lease's
  /// worker, ACCOUNTS_LEASE_ID): the holder's wherever the store names one of them.
  public var presentedLeases: Set<String> = []
  /// `--force`: log in or out an account another holder leases.
  public var forced = false
  /// What a refusal tells a person to do about it (`--force` of this command, of `login`, or
  /// nothing).
  public var forcing = LeaseForcing.login
  /// Where the one-time code of a backend that needs one comes from (`OneTimeCode.swift`).
  let oneTimeCodes: OneTimeCodeSource
  /// Where a login a person approves elsewhere (the device flow) shows them what to do: the
  /// terminal, when there is one; nil: such a login is refused (`personRequired`).
  public var person: PersonChannel?

  public init(
    ledger: Ledger, host: @escaping () throws -> any AdapterHosting, searchPath: AdapterSearchPath, timeout: Double,
    locks: any SessionLocking, now: @escaping () -> Timestamp, notice: @escaping (String) -> Void,
    oneTimeCodes: OneTimeCodeSource = .none
  ) {
    self.oneTimeCodes = oneTimeCodes
    self.ledger = ledger
    self.host = host
    self.locks = locks
    self.searchPath = searchPath
    self.timeout = timeout
    self.budget = OperationBudget(seconds: timeout)
    self.now = now
    self.notice = notice
  }
}
