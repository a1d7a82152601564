import AccountsContract
import AccountsSystem

/// What a refusal for another holder's lease says about forcing it.
public enum LeaseForcing: Sendable, Equatable {
  /// The command takes --force (`login`, `logout`, `remove`, `clear`).
  case thisCommand
  /// `accounts login USER --force` would (a session command that needed a login).
  case login
  /// Nothing: forcing would not help here (`backend test`).
  case none
}

/// How a session command ends when it does not succeed: the one table from a backend's verdict
/// (after the session rules have been carried out) to the message and exit status of SPEC §3.
/// `backend test` uses it for the raw verdict, the session flow for the verdict and what the
/// rules did about it; nothing else decides these messages or numbers.
public enum SessionFailure: UserFacingError, Equatable {
  /// No valid session, no remembered password, and no way to ask for one (exit 3).
  case loginRequired(AccountID)
  /// Logging in needs a person to approve it at the provider (the device flow), and nobody
  /// can be shown what to do: no terminal (exit 3).
  case personRequired(AccountID)
  /// The backend needs a one-time code, and there is no seed to compute it from and nobody to
  /// ask for it (exit 3). `name`: how `accounts otp set` names the account.
  case oneTimeCodeRequired(AccountID, name: String)
  /// The session expired and there is nothing to log in again with (exit 5).
  case expired(subject: String, message: String)
  /// The session expired again right after the one automatic re-login (exit 5).
  case expiredAgain(subject: String, message: String)
  /// Another login took the session over (exit 5); never followed by an automatic login.
  case signedInElsewhere(subject: String, message: String)
  /// The backend rejected the password (exit 4); `forgotten`: the remembered one was cleared.
  case credentialsRejected(subject: String, message: String, forgotten: Bool)
  /// The backend rejected a login that carried a one-time code (exit 4): the password, the
  /// code or the clock it was computed at may be wrong, so nothing is forgotten.
  case codeRejected(subject: String, message: String, code: OneTimeCodeOrigin)
  /// A login a person approves elsewhere was denied there (exit 4): nothing was asked of, or
  /// is forgotten about, a password.
  case approvalDenied(AccountID, message: String)
  /// The backend wants a newer client (exit 6): its message and the link it sent.
  case upgradeRequired(subject: String, message: String, link: String)
  /// The network or the backend failed (exit 8); nothing was changed.
  case backendUnavailable(subject: String, message: String)
  /// The adapter misbehaved (exit 9); nothing was changed.
  case adapterFailed(subject: String, message: String)
  /// The adapter reported a successful login without a token (exit 9).
  case noToken(AccountID)
  /// The backend's session cannot be handed on in an environment variable (`exec`, `env`,
  /// `shell`, hooks): refused at login, nothing stored (exit 8, the backend's answer is unusable).
  case unexportable(AccountID, variable: String, problem: String)
  /// Another holder leases the account, and only it logs the account in or out (exit 1).
  /// `act`: what was refused; `forcing`: what to say about forcing it.
  case leased(AccountID, SessionAct, by: LeaseRecord, forcing: LeaseForcing)
  /// This command's lease of the account was lost (exit 5): it logs the account in no more.
  case leaseLost(AccountID, now: LeaseRecord?)

  /// The raw verdict of an outcome other than `.ok`, for commands that keep nothing (`backend
  /// test`); nil for `.ok`.
  public init?(_ outcome: AdapterOutcome, subject: String) {
    self.init(outcome, subject: subject, rulesForgotPassword: false)
  }

  /// The verdict of a LOGIN, which carried a one-time code from `oneTimeCode` unless nil: a
  /// rejection of such a login may be the code's.
  public init?(_ outcome: AdapterOutcome, subject: String, oneTimeCode: OneTimeCodeOrigin?) {
    if case .wrongPassword(let message) = outcome, let oneTimeCode {
      self = .codeRejected(subject: subject, message: message, code: oneTimeCode)
    } else {
      self.init(outcome, subject: subject)
    }
  }

  /// The verdict after the session rules were carried out on `id`: `next` says what they did.
  public init?(_ outcome: AdapterOutcome, on id: AccountID, next: NextStep, forcing: LeaseForcing = .login) {
    switch next {
    case .leasedByAnother(let record): self = .leased(id, .logIn, by: record, forcing: forcing)
    case .leaseLost(let record): self = .leaseLost(id, now: record)
    default: self.init(outcome, subject: id.description, next: next)
    }
  }

  /// The refusal `next` of `SessionRules.refusal(of:)`, for `act` on `id`.
  public init?(refusing act: SessionAct, of id: AccountID, next: NextStep?, forcing: LeaseForcing) {
    switch next {
    case .leasedByAnother(let record)?: self = .leased(id, act, by: record, forcing: forcing)
    case .leaseLost(let record)?: self = .leaseLost(id, now: record)
    default: return nil
    }
  }

  /// The verdict after the session rules were carried out: `next` says what they did.
  public init?(_ outcome: AdapterOutcome, subject: String, next: NextStep) {
    switch (outcome, next) {
    case (.sessionExpired(let message), .loginRequired):
      self = .expired(subject: subject, message: message)
    case (.wrongPassword, .credentialsRejected):
      self.init(outcome, subject: subject, rulesForgotPassword: true)
    default:
      self.init(outcome, subject: subject, rulesForgotPassword: false)
    }
  }

  private init?(_ outcome: AdapterOutcome, subject: String, rulesForgotPassword: Bool) {
    switch outcome {
    case .ok: return nil
    case .wrongPassword(let message):
      self = .credentialsRejected(subject: subject, message: message, forgotten: rulesForgotPassword)
    case .sessionExpired(let message): self = .expired(subject: subject, message: message)
    case .kicked(let message): self = .signedInElsewhere(subject: subject, message: message)
    case .upgradeRequired(let message, let link): self = .upgradeRequired(subject: subject, message: message, link: link)
    case .backendError(let message): self = .backendUnavailable(subject: subject, message: message)
    case .adapterFailed(let message): self = .adapterFailed(subject: subject, message: message)
    }
  }

  public var status: ExitStatus {
    switch self {
    case .loginRequired, .personRequired, .oneTimeCodeRequired: .loginRequired
    case .expired, .expiredAgain, .signedInElsewhere: .sessionEnded
    case .credentialsRejected, .codeRejected, .approvalDenied: .credentialsRejected
    case .upgradeRequired: .upgradeRequired
    case .backendUnavailable, .unexportable: .backendUnavailable
    case .adapterFailed, .noToken: .adapterFailed
    case .leased: .failure
    case .leaseLost: .sessionEnded
    }
  }

  public var message: String {
    switch self {
    case .loginRequired(let id):
      "\(id): login required: no valid session, no remembered password, and no terminal to ask for one"
    case .personRequired(let id):
      "\(id): login required: a person approves the login at the provider, and there is no terminal to show them how"
    case .oneTimeCodeRequired(let id, let name):
      "\(id) needs a one-time code: `accounts otp set \(name)`"
    case .expired(let subject, let message):
      "\(subject): the session expired\(Self.quoting(message)); login required"
    case .expiredAgain(let subject, let message):
      "\(subject): the session expired again right after logging in\(Self.quoting(message)); not trying again"
    case .signedInElsewhere(let subject, let message):
      "\(subject): signed in elsewhere\(Self.quoting(message)); not logging in again automatically"
    case .credentialsRejected(let subject, let message, let forgotten):
      "\(subject): \(message.isEmpty ? "the backend rejected the password" : message)"
        + (forgotten ? "; the remembered password is forgotten" : "")
    case .codeRejected(let subject, let message, _):
      "\(subject): \(message.isEmpty ? "the backend rejected the password or the one-time code" : message)"
    case .approvalDenied(let id, let message):
      "\(id): \(message.isEmpty ? "the login was denied at the provider" : message)"
    case .upgradeRequired(let subject, let message, _):
      "\(subject): the backend requires a newer client\(Self.quoting(message))"
    case .backendUnavailable(let subject, let message), .adapterFailed(let subject, let message):
      "\(subject): \(message)"
    case .noToken(let id):
      "\(id): the adapter reported a successful login but returned no token"
    case .unexportable(let id, let variable, let problem):
      "\(id): the login was refused and nothing stored: the backend's "
        + "\(variable == SessionExport.tokenVariable ? "token" : "userId") \(problem), "
        + "so exec, env, shell and hooks could not hand it on"
    case .leased(let id, let act, let record, _):
      "\(id) is leased by \(record.holder) since \(LocalTime.format(record.since)); "
        + "only its holder \(act == .forget ? "may forget it" : "logs it in or out")"
    case .leaseLost(let id, let record):
      "\(id): the lease of this command was lost (it expired or was ended)"
        + (record.map { "; \($0.holder) holds the account since \(LocalTime.format($0.since))" } ?? "")
        + "; not logging it in again"
    }
  }

  public var fix: String? {
    switch self {
    case .loginRequired(let id):
      "run `accounts login \(id)` on a terminal, or pipe the password to `accounts login \(id) --password-stdin`"
    case .personRequired(let id):
      "run `accounts login \(id)` on a terminal"
    case .oneTimeCodeRequired:
      "it keeps the account's TOTP seed for later logins; or log in on a terminal and type the code"
    case .expired(let subject, _), .signedInElsewhere(let subject, _):
      "`accounts login \(subject)` starts a new session"
    case .expiredAgain:
      "check the backend's clock and token lifetime, then `accounts login` again"
    case .credentialsRejected(let subject, _, true):
      "log in with the new password: `accounts login \(subject) --remember`"
    case .credentialsRejected:
      "check the user name and password"
    case .approvalDenied(let id, _):
      "run `accounts login \(id)` again, and approve it at the provider as the account's user"
    case .codeRejected(_, _, .seed(let name)):
      "check the password, the TOTP seed (`accounts otp \(name)` against your authenticator) and this machine's clock"
    case .codeRejected(_, _, .typed):
      "check the password, and type the current code"
    case .upgradeRequired(_, _, let link):
      link.isEmpty ? "update the client" : "get the update: \(link)"
    case .backendUnavailable, .adapterFailed:
      nil  // the adapter host's message says what to check
    case .noToken:
      "`accounts adapters` shows the adapter; report the problem to its author"
    case .unexportable:
      "ask the backend's operators for shorter session tokens"
    case .leased(let id, let act, let record, let forcing):
      (record.kind == .held ? "wait for its command to end" : "`accounts release \(record.lease)` ends it")
        + {
          switch forcing {
          case .thisCommand: ", or add --force"
          case .login where act == .logIn: ", or log it in anyway with `accounts login \(id) --force`"
          case .login, .none: ""
          }
        }()
    case .leaseLost:
      "`accounts leases` shows who holds it; lease it again to use it"
    }
  }

  /// " (the backend's words)", or nothing when it said nothing.
  private static func quoting(_ message: String) -> String {
    message.isEmpty ? "" : " (\(message))"
  }
}
