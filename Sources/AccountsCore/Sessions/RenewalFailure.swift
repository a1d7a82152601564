import AccountsContract
import AccountsSystem

/// What a failed renewal or check of one account means to `--refresh` (`TokenRefresher`): tried
/// again after a backoff, or not at all (trying again could not help or would do harm), in the
/// words it says them with (the account is named once, at the start of the line).
public struct RenewalFailure {
  /// Why the account is no longer renewed, said after its name; nil when it is tried again.
  public var lastWords: String?
  /// Why this attempt failed, for the line that says when the next one comes.
  public var reason: String

  /// `leased`: the refresher holds the account's lease.
  public init(_ error: any Error, _ id: AccountID, _ flow: SessionFlow, leased: Bool) {
    var message = (error as? any UserFacingError)?.message ?? "\(error)"
    for subject in ["\(id): ", "\(id) "] where message.hasPrefix(subject) {
      message.removeFirst(subject.count)
    }
    reason = message
    let book = try? flow.ledger.index.load()
    if let book, book[id] == nil {
      // Removed meanwhile: nothing could log it in again, and nobody wants it any more.
      lastWords = " was removed; its token file is no longer renewed"
      return
    }
    let name = book?.shortestName(for: id) ?? id.description
    switch error as? SessionFailure {
    case .credentialsRejected?, .codeRejected?:
      // The same password and seed would be rejected again, and each try counts towards a
      // lockout; with a one-time code the remembered password is kept (either may be wrong).
      let needsCode = (try? flow.prepare(id.backend))?.needsOneTimeCode ?? false
      lastWords =
        ": the backend rejected the login; no more renewals: check the password (`accounts passwd \(name)`)"
        + (needsCode ? " and the TOTP seed (`accounts otp set \(name)`)" : "")
        + ", then start the command again"
    case .signedInElsewhere? where !leased:
      // SPEC §4: a session taken over is not taken back.
      lastWords = ": \(message); its token file is no longer renewed"
    case .leaseLost?, .leased?:
      // SPEC §4: the account is another holder's now; logging it in would end its session.
      lastWords = ": \(message); its token file is no longer renewed"
    case .loginRequired?:
      // Nothing was sent; `accounts passwd` meanwhile is picked up by the next try.
      reason =
        "no remembered password to log in again with: `accounts passwd \(name)` remembers one"
    case .oneTimeCodeRequired?:
      reason =
        "no TOTP seed kept for the one-time code its login needs: `accounts otp set \(name)` keeps one"
    default:
      break
    }
  }
}
