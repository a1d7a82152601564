/// Something that happened to an account's session (SPEC §4).
public enum SessionEvent: Sendable, Equatable {
  /// The backend accepted the credentials. `remember`: keep the password; `takeSlot`: make the
  /// account the auto-login one (`login --auto`, `switch`).
  case loggedIn(remember: Bool, takeSlot: Bool)
  /// `switch` found a valid session: the account takes the slot and keeps its token.
  case sessionReused
  /// The user logged out.
  case loggedOut
  /// A client the token was handed to found it rejected by its server and asked for it to be
  /// forgotten (git's `erase`, with `--erase-logs-out`). Not the user logging out: the account
  /// stays the one in use, so the next login (or a renewal with the remembered password) makes
  /// it work again where it did.
  case tokenRejected
  /// The backend says another login took the session over (single sign-on).
  case takenOver
  /// The backend says the token expired (or its expiry passed).
  case tokenExpired
  /// The refresh token renewed the session: a new token (and, when the provider rotated it, a
  /// new refresh token) replaces the old; the remembered password, the slot stay.
  case refreshed
  /// The provider refused the refresh token (OAuth's invalid_grant): it is forgotten with the
  /// token, and the session is renewed as an expired one without a refresh token would be.
  case refreshRejected
  /// The backend rejected the password (changed elsewhere).
  case passwordRejected
  /// The backend wants a newer client.
  case upgradeRequired
}

/// What happens to the auto-login slot.
public enum SlotChange: Sendable, Equatable {
  case keep
  /// The account takes the slot; the previous holder becomes a plain saved account.
  case take
  /// The account gives the slot up if it holds it.
  case release
}

/// What the command does after applying a transition.
public enum NextStep: Sendable, Equatable {
  case done
  /// Renew the session once: with the refresh token when there is one, else (or when the
  /// provider refuses it) a login with the remembered password.
  case loginAgainOnce
  /// Token expired and nothing to log in with: exit 5.
  case loginRequired
  /// Taken over by another login: exit 5, and never log in again automatically, which would
  /// kick the other device in a loop.
  case signedInElsewhere
  /// Wrong password: exit 4.
  case credentialsRejected
  /// Exit 6 with the backend's message and link.
  case upgradeRequired
  /// Another holder leases the account: only it logs the account in or out, or logs it in
  /// again after a take-over or an expiry (exit 1, naming the holder).
  case leasedByAnother(LeaseRecord)
  /// This command's lease of the account was lost: it stops logging the account in at once and
  /// leaves it to the new holder (exit 5).
  case leaseLost(LeaseRecord?)
}

/// What a command is about to do to an account's session at its backend.
public enum SessionAct: Sendable, Equatable {
  /// A login: the first, one after an expiry or a take-over, a renewal.
  case logIn
  /// A logout.
  case logOut
  /// Forgetting the account (`remove`, `clear`), which ends its session with it.
  case forget
}

/// The effect of one event on the five items of SPEC §4: (1) saved account, (2) remember flag,
/// (3) remembered password, (4) auto-login slot, (5) token. The ledger carries it out
/// (`Ledger.record`): secrets and index together, in its fixed order.
public struct Transition: Sendable, Equatable {
  /// Set (1) and (5). The refresh token goes with the token (a part of item 5): a login
  /// stores the one it got, or none; a renewal by refresh keeps the old one unless
  /// `keepsRefreshToken` is false or the provider rotated it.
  public var storeToken = false
  /// With `storeToken`: a renewal by the refresh token, which stays unless replaced.
  public var keepsRefreshToken = false
  /// Set (2) and (3).
  public var storePassword = false
  /// Clear (5), with its refresh token.
  public var deleteToken = false
  /// Clear (2) and (3).
  public var deletePassword = false
  /// (4)
  public var slot = SlotChange.keep
  public var next = NextStep.done

  public init(
    storeToken: Bool = false, keepsRefreshToken: Bool = false, storePassword: Bool = false, deleteToken: Bool = false,
    deletePassword: Bool = false, slot: SlotChange = .keep, next: NextStep = .done
  ) {
    self.storeToken = storeToken
    self.keepsRefreshToken = keepsRefreshToken
    self.storePassword = storePassword
    self.deleteToken = deleteToken
    self.deletePassword = deletePassword
    self.slot = slot
    self.next = next
  }
}

/// SPEC §4 as one pure function; every command that reacts to a backend's verdict calls it,
/// and nothing else decides these effects.
public enum SessionRules {
  /// The transition for `event` on an account that has (`true`) or has not a remembered
  /// password and a refresh token, whose lease stands as `lease`.
  ///
  /// A session with a refresh token is not over when its token expires: nothing is deleted,
  /// and only its holder (anyone, when it is not leased) renews it, by the refresh token first
  /// (`loginAgainOnce`). A refused refresh token is an expiry without one.
  ///
  /// A take-over of a session this command holds the lease of was someone outside the pool (a
  /// person, another machine before the lease): the remembered password logs in again once, as
  /// after an expiry, and kicking them cannot start a loop between two holders, since there is
  /// only one. Outside a lease a take-over never logs in again. Nobody but the holder logs a
  /// leased account in again, and a holder that lost its lease stops at once.
  public static func transition(
    for event: SessionEvent, hasRememberedPassword: Bool, hasRefreshToken: Bool = false, lease: LeaseStanding = .free
  ) -> Transition {
    switch event {
    case .refreshed:
      return Transition(storeToken: true, keepsRefreshToken: true)
    case .refreshRejected:
      return transition(for: .tokenExpired, hasRememberedPassword: hasRememberedPassword, lease: lease)
    case .tokenExpired where hasRefreshToken:
      switch lease {
      case .lost(let record): return Transition(next: .leaseLost(record))
      case .theirs(let record): return Transition(next: .leasedByAnother(record))
      default: return Transition(next: .loginAgainOnce)
      }
    case .loggedIn(let remember, let takeSlot):
      return Transition(storeToken: true, storePassword: remember, slot: takeSlot ? .take : .keep)
    case .sessionReused:
      return Transition(slot: .take)
    case .loggedOut:
      return Transition(deleteToken: true, slot: .release)
    case .tokenRejected:
      return Transition(deleteToken: true)
    case .takenOver:
      switch lease {
      case .ours where hasRememberedPassword: return Transition(deleteToken: true, next: .loginAgainOnce)
      case .lost(let record): return Transition(deleteToken: true, slot: .release, next: .leaseLost(record))
      default: return Transition(deleteToken: true, slot: .release, next: .signedInElsewhere)
      }
    case .tokenExpired:
      switch lease {
      case .lost(let record): return Transition(deleteToken: true, next: .leaseLost(record))
      case .theirs(let record) where hasRememberedPassword:
        return Transition(deleteToken: true, next: .leasedByAnother(record))
      case _ where hasRememberedPassword: return Transition(deleteToken: true, next: .loginAgainOnce)
      default: return Transition(deleteToken: true, slot: .release, next: .loginRequired)
      }
    case .passwordRejected:
      return Transition(deleteToken: true, deletePassword: true, slot: .release, next: .credentialsRejected)
    case .upgradeRequired:
      return Transition(next: .upgradeRequired)
    }
  }

  /// Whether where the lease stands can change what `event` does, for a command that holds or
  /// presents a lease of the account (`claimed`) or not: a take-over logs in again only under
  /// the command's own lease (and tells a lost one); an expiry logs in again only with a
  /// remembered password or a refresh token, and only its holder. Otherwise the store need not
  /// be asked: a store that cannot be reached then changes nothing.
  public static func leaseMatters(
    to event: SessionEvent, hasRememberedPassword: Bool, hasRefreshToken: Bool = false, claimed: Bool
  ) -> Bool {
    switch event {
    case .takenOver: claimed
    case .tokenExpired: hasRememberedPassword || hasRefreshToken || claimed
    case .refreshRejected: hasRememberedPassword || claimed
    default: false
    }
  }

  /// Whether `act` may go ahead on an account whose lease stands as `lease`: nil when it may,
  /// else why not. Its holder may do anything; nobody else logs it in or out or forgets it
  /// unless `forced` (`--force`); a holder that lost its lease logs it in no more, forced or not.
  public static func refusal(of act: SessionAct, lease: LeaseStanding, forced: Bool) -> NextStep? {
    switch lease {
    case .free, .ours: nil
    case .theirs(let record): forced ? nil : .leasedByAnother(record)
    case .lost(let record): act == .logIn ? .leaseLost(record) : nil
    }
  }
}
