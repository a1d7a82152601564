import AccountsContract
import AccountsSystem

/// Why a lease could not be released. Exit status 1. A store that cannot be used throws
/// `FileError` (local) instead, naming the file and the fix.
public enum LeaseError: UserFacingError, Equatable {
  /// No lease of this store has this id: mistyped, another store's, or ended long ago.
  case unknown(lease: String)
  /// The lease ran out at `at`; nothing was left to free.
  case expired(lease: String, at: Timestamp)
  /// A held lease: it ends when the processes holding it exit, not by `release`.
  case held(lease: String, holder: LeaseHolder)

  public var status: ExitStatus { .failure }

  public var message: String {
    switch self {
    case .unknown(let lease): "no lease '\(Names.printable(lease, limit: 40))' in this lease store"
    case .expired(let lease, let at): "lease \(lease) expired at \(at); it holds nothing"
    case .held(let lease, let holder):
      "lease \(lease) is held by the running command of \(holder); it is not a --ttl lease"
    }
  }

  public var fix: String? {
    switch self {
    case .unknown: "run 'accounts leases' to see the live leases and their ids"
    case .expired: nil
    case .held(_, let holder): "end that command (pid \(holder.pid) on \(holder.host)); the lease ends with it"
    }
  }
}

/// A shared lease store that cannot be used: not reachable, refusing us, or answering what no
/// Redis would. Exit 8, naming the address (never a password: addresses hold none).
public struct LeaseStoreUnavailable: UserFacingError, Equatable {
  public let address: String
  public let detail: String
  public let fix: String?

  public init(address: String, detail: String, fix: String? = nil) {
    self.address = address
    self.detail = detail
    self.fix = fix
  }

  public var status: ExitStatus { .backendUnavailable }
  public var message: String { "lease store \(address): \(detail)" }
}
