import AccountsContract
import AccountsSystem
import Synchronization

/// One account of `login --stale`, and what was done with it.
public struct StaleLoginEntry: Sendable {
  public enum Outcome: Sendable {
    /// Renewed: by its refresh token, else logged in again with the remembered password.
    case loggedIn(ActiveSession)
    /// Its session lasts beyond the window (nil: the backend gave no expiry): left alone.
    case fresh(until: Timestamp?)
    /// No remembered password nor refresh token: nobody is asked for one.
    case skipped
    /// Another holder leases the account: its session is the holder's (SPEC §4).
    case leased(LeaseRecord)
    /// The login failed, after the session rules were applied.
    case failed(status: ExitStatus, message: String)
  }

  public var id: AccountID
  public var outcome: Outcome
}

extension SessionFlow {
  /// `login --stale`: every account of `ids` whose session is missing, expired or ends within
  /// `withinSeconds` is renewed (its refresh token, else its remembered password), at most `jobs` at once,
  /// each through `renewOnce` (the rules of SPEC §4 in one place) with its own `--timeout`.
  /// Accounts with neither are skipped, never asked for a password, and so are those
  /// another holder leases (unless `forced`). Entries come back in the order of `ids`;
  /// `each` is told every entry as it ends, with how many have ended, one at a time.
  ///
  /// The first login on each backend goes alone: when the backend rejects that remembered
  /// password, the backend's other accounts are not tried. SPEC §4 forgets a rejected
  /// remembered password, which is right for one account whose password changed elsewhere,
  /// but one wrong backend setting (an `encoding`) would otherwise wipe every remembered
  /// password of the pool in one run. A run after the fix goes on with the rest.
  public func logInStale(
    _ ids: [AccountID], withinSeconds: Int64, jobs: Int,
    each: @escaping @Sendable (StaleLoginEntry, _ done: Int) -> Void = { _, _ in }
  ) -> [StaleLoginEntry] {
    let results = StaleResults(count: ids.count, each: each)
    // The first account of each backend (in the order of ids) that needs a login goes first.
    var seen = Set<String>()
    let firsts = ids.indices.filter { index in
      let id = ids[index]
      guard !seen.contains(id.backend), needsLogin(id, withinSeconds: withinSeconds) else { return false }
      seen.insert(id.backend)
      return true
    }
    let rest = ids.indices.filter { !firsts.contains($0) }
    for indices in [firsts, rest] {
      forEachConcurrently(indices.count, width: jobs) { position in
        let index = indices[position]
        results.set(index, StaleLoginEntry(id: ids[index], outcome: refreshIfStale(ids[index], withinSeconds: withinSeconds, shared: results)))
      }
    }
    return results.entries(ids)
  }

  /// One account of `logInStale`: left alone, skipped, or logged in.
  private func refreshIfStale(_ id: AccountID, withinSeconds: Int64, shared: StaleResults) -> StaleLoginEntry.Outcome {
    // A keyring that did not answer once is not asked again (each would wait its deadline).
    if let silent = shared.keyringSilence {
      return .failed(status: silent.status, message: "not tried: \(silent.message)")
    }
    do {
      if let fresh = try fresh(id, withinSeconds: withinSeconds) { return fresh }
      guard try ledger.index.load()[id]?.renewable == true else { return .skipped }
      if case .leasedByAnother(let record)? = SessionRules.refusal(
        of: .logIn, lease: try leaseStanding(id), forced: forced)
      {
        return .leased(record)
      }
      var flow = self
      flow.budget = OperationBudget(seconds: timeout)  // each account its own --timeout
      flow.notice = { _ in }  // one line per account: "using the remembered password" goes without saying
      let backend = try flow.prepare(id.backend)
      let gate = shared.gate(id.backend)
      if let refusal = gate.enter() { return .failed(status: .credentialsRejected, message: refusal) }
      var rejected = false
      defer { gate.leave(rejectedBy: rejected ? id : nil) }
      do {
        return try flow.locks.exclusive(id) {
          // Another command may have logged the account in while this one waited: a second
          // login would take its session over.
          if let fresh = try fresh(id, withinSeconds: withinSeconds) { return fresh }
          return .loggedIn(try flow.renewOnce(id, backend, asking: false, because: "the session is stale"))
        }
      } catch {
        rejected = (error as? any UserFacingError)?.status == .credentialsRejected
        throw error
      }
    } catch {
      let failure = error as? any UserFacingError
      let status = failure?.status ?? .failure
      var message = failure?.message ?? "\(error)"
      for subject in ["\(id): ", "\(id) "] where message.hasPrefix(subject) {  // the line names it already
        message.removeFirst(subject.count)
      }
      if mayStillLand(error) { shared.keyringSilence = (status, message) }
      return .failed(status: status, message: message)
    }
  }
}

extension SessionFlow {
  /// Whether `refreshIfStale` would log `id` in, as the index says now.
  fileprivate func needsLogin(_ id: AccountID, withinSeconds: Int64) -> Bool {
    guard (try? ledger.index.load()[id]?.renewable) == true else { return false }
    do { return try fresh(id, withinSeconds: withinSeconds) == nil } catch { return false }
  }

  /// `.fresh` when the index has a session of `id` that lasts beyond `withinSeconds` from now
  /// (or has no expiry), else nil. Read at each look, not when the command started.
  fileprivate func fresh(_ id: AccountID, withinSeconds: Int64) throws -> StaleLoginEntry.Outcome? {
    guard let account = try ledger.index.load()[id] else {
      throw AccountLookupError.unknown(id.description, backend: nil, suggestions: [])
    }
    let horizon = now().adding(seconds: withinSeconds)
    guard case .valid(let until) = account.tokenState(at: now()), until.map({ $0 > horizon }) ?? true else {
      return nil
    }
    return .fresh(until: until)
  }
}

/// One backend's logins under `login --stale`: the first goes alone; the rest follow once it
/// was not rejected, and are not tried when it was.
private final class BackendGate: @unchecked Sendable {
  private enum State {
    case untried, probing, open
    case closed(AccountID)
  }
  private var state = State.untried
  private let lock = Mutex(())

  /// Nil: go on (as the backend's first login, or after it); else why not.
  func enter() -> String? {
    while true {
      let verdict: String?? = lock.withLock { _ in
        switch state {
        case .untried:
          state = .probing
          return .some(nil)
        case .probing: return nil  // wait for the first login's verdict
        case .open: return .some(nil)
        case .closed(let first):
          return .some(
            "not tried: the remembered password of \(first) was rejected; "
              + "if every login on \(first.backend) fails, check its settings (`accounts backend show \(first.backend)`) and run again")
        }
      }
      if let verdict { return verdict }
      sleep(seconds: 0.01)
    }
  }

  /// After a login that `enter` let through: the first one opens or closes the gate.
  func leave(rejectedBy id: AccountID?) {
    lock.withLock { _ in
      guard case .probing = state else { return }
      state = id.map { .closed($0) } ?? .open
    }
  }
}

/// The entries of `logInStale`, filled in by its threads.
private final class StaleResults: @unchecked Sendable {
  private var slots: [StaleLoginEntry.Outcome?]
  private var silence: (status: ExitStatus, message: String)?
  private var gates: [String: BackendGate] = [:]
  private let lock = Mutex(())

  /// The gate of `backend`'s logins.
  func gate(_ backend: String) -> BackendGate {
    lock.withLock { _ in
      if let gate = gates[backend] { return gate }
      let gate = BackendGate()
      gates[backend] = gate
      return gate
    }
  }

  private var done = 0
  private let each: @Sendable (StaleLoginEntry, Int) -> Void

  init(count: Int, each: @escaping @Sendable (StaleLoginEntry, Int) -> Void) {
    slots = Array(repeating: nil, count: count)
    self.each = each
  }

  /// The keyring's first timeout, after which no account asks it again.
  var keyringSilence: (status: ExitStatus, message: String)? {
    get { lock.withLock { _ in silence } }
    set { lock.withLock { _ in if silence == nil { silence = newValue } } }
  }

  /// Keeps `entry` and tells `each` under the lock, so that it is told one entry at a time.
  func set(_ index: Int, _ entry: StaleLoginEntry) {
    lock.withLock { _ in
      slots[index] = entry.outcome
      done += 1
      each(entry, done)
    }
  }

  func entries(_ ids: [AccountID]) -> [StaleLoginEntry] {
    lock.withLock { _ in
      zip(ids, slots).map { StaleLoginEntry(id: $0, outcome: $1 ?? .failed(status: .failure, message: "not tried")) }
    }
  }
}
