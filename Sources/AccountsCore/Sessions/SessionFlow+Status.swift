import AccountsContract
import AccountsSystem
import SecretMemory
import Synchronization

// `status`: every account checked at once, the results kept in order.
extension SessionFlow {
  /// `status`: every account's session proved with its backend, at most `jobs` operations at
  /// once, SPEC §4 applied to each (an expired session is logged in again with the remembered
  /// password; nobody is asked for one). Accounts without a session are not contacted.
  /// `each` is told every entry as its check ends, with how many have ended, one at a time.
  public func status(
    of ids: [AccountID], jobs: Int, each: @escaping @Sendable (StatusEntry, _ done: Int) -> Void = { _, _ in }
  ) throws -> [StatusEntry] {
    var book = try ledger.index.load()
    let results = StatusResults(count: ids.count, each: each)
    // Every token in one read, not one read per account; an account whose token was renewed
    // since is read again on its own.
    var tokens = ReadTokens(secrets: [:], book: book)
    if ids.contains(where: { book[$0]?.token != nil }) {
      let store = try ledger.secrets()
      try ledger.checkRecordedProvider(store, recorded: book.secretService)
      // The keyring is open: what interrupted commands left is settled first, every account.
      if try !ledger.settleIfUnsettled().isEmpty { book = try ledger.index.load() }
      tokens = ReadTokens(secrets: try store.lookupAll(kind: .token), book: book)
    }
    let read = tokens
    let checked = book
    forEachConcurrently(ids.count, width: jobs) { index in
      let id = ids[index]
      guard checked[id]?.token != nil else {
        results.set(index, StatusEntry(id: id, outcome: .noSession))
        return
      }
      // A keyring that did not answer once is not asked again (each would wait its deadline).
      if let silent = results.keyringSilence {
        results.set(index, StatusEntry(id: id, outcome: .error(status: silent.status, message: "not checked: \(silent.message)")))
        return
      }
      do {
        var flow = self
        flow.budget = OperationBudget(seconds: timeout)  // each account its own --timeout
        let session = try flow.session(for: id, prove: true, password: .rememberedOnly, read: read)
        results.set(index, StatusEntry(id: id, outcome: .valid(session)))
      } catch let failure as SessionFailure {
        results.set(index, StatusEntry(id: id, outcome: .failed(failure)))
      } catch {
        let failure = error as? any UserFacingError
        results.set(index, StatusEntry(id: id, outcome: .error(
          status: failure?.status ?? .failure, message: failure?.message ?? "\(error)")))
        if mayStillLand(error), let failure { results.keyringSilence = (failure.status, failure.message) }
      }
    }
    return results.entries(ids)
  }
}

/// One line of `status`.
public struct StatusEntry: Sendable {
  public enum Outcome: Sendable {
    /// No token: not contacted.
    case noSession
    /// The backend confirmed the session, or it was logged in again.
    case valid(ActiveSession)
    /// The backend's verdict, after the rules were applied.
    case failed(SessionFailure)
    /// Something else failed (the keyring, the adapter host).
    case error(status: ExitStatus, message: String)
  }

  public var id: AccountID
  public var outcome: Outcome
}

private final class StatusResults: @unchecked Sendable {
  private var slots: [StatusEntry.Outcome?]
  private var silence: (status: ExitStatus, message: String)?
  private let lock = Mutex(())

  /// The keyring's first timeout, after which no account asks it again.
  var keyringSilence: (status: ExitStatus, message: String)? {
    get { lock.withLock { _ in silence } }
    set { lock.withLock { _ in if silence == nil { silence = newValue } } }
  }

  private var done = 0
  private let each: @Sendable (StatusEntry, Int) -> Void

  init(count: Int, each: @escaping @Sendable (StatusEntry, Int) -> Void) {
    slots = Array(repeating: nil, count: count)
    self.each = each
  }

  /// Keeps `entry` and tells `each` under the lock, so that it is told one entry at a time.
  func set(_ index: Int, _ entry: StatusEntry) {
    lock.withLock { _ in
      slots[index] = entry.outcome
      done += 1
      each(entry, done)
    }
  }

  func entries(_ ids: [AccountID]) -> [StatusEntry] {
    lock.withLock { _ in zip(ids, slots).map { StatusEntry(id: $0, outcome: $1 ?? .noSession) } }
  }
}

/// Tokens read all at once, with the index as it was before the read: a token is used only for
/// the session the index still names, so a session renewed since is read again rather than
/// paired with an older token.
struct ReadTokens: @unchecked Sendable {
  let secrets: [SecretKey: SecretBytes]
  let book: AccountBook

  func token(_ key: SecretKey, for session: ObservedSession) -> SecretBytes? {
    let id = AccountID(user: key.account, backend: key.backend)
    guard ObservedSession(book[id]) == session else { return nil }
    return secrets[key]
  }
}
