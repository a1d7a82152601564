import AccountsSystem

/// One account of `login --stale`, and what was done with it.
public struct StaleLoginEntry: Sendable {
  public enum Outcome: Sendable {
    /// Logged in again with the remembered password.
    case loggedIn(ActiveSession)
    /// Its session lasts beyond the window (nil: the backend gave no expiry): left alone.
    case fresh(until: Timestamp?)
    /// No remembered password: nobody is asked for one.
    case skipped
    /// The login failed, after the session rules were applied.
    case failed(status: ExitStatus, message: String)
  }

  public var id: AccountID
  public var outcome: Outcome
}

extension SessionFlow {
  /// `login --stale`: every account of `ids` whose session is missing, expired or ends within
  /// `withinSeconds` is logged in with its remembered password, at most `jobs` logins at once,
  /// each through `logIn` (the rules of SPEC §4 in one place) with its own `--timeout`.
  /// Accounts without a remembered password are skipped, never asked for one. Entries come back
  /// in the order of `ids`.
  public func logInStale(_ ids: [AccountID], withinSeconds: Int64, jobs: Int) -> [StaleLoginEntry] {
    let results = StaleResults(count: ids.count)
    forEachConcurrently(ids.count, width: jobs) { index in
      let id = ids[index]
      results.set(index, refreshIfStale(id, withinSeconds: withinSeconds, silence: results))
    }
    return results.entries(ids)
  }

  /// One account of `logInStale`: left alone, skipped, or logged in.
  private func refreshIfStale(_ id: AccountID, withinSeconds: Int64, silence: StaleResults) -> StaleLoginEntry.Outcome {
    // A keyring that did not answer once is not asked again (each would wait its deadline).
    if let silent = silence.keyringSilence {
      return .failed(status: silent.status, message: "not tried: \(silent.message)")
    }
    do {
      if let fresh = try fresh(id, withinSeconds: withinSeconds) { return fresh }
      guard try ledger.index.load()[id]?.remembered == true else { return .skipped }
      var flow = self
      flow.budget = OperationBudget(seconds: timeout)  // each account its own --timeout
      let backend = try flow.prepare(id.backend)
      let (password, remembered) = try flow.password(for: id, .rememberedOnly)
      return try flow.locks.exclusive(id) {
        // Another command may have logged the account in while this one waited: a second login
        // would take its session over.
        if let fresh = try fresh(id, withinSeconds: withinSeconds) { return fresh }
        let session = try flow.logIn(
          id, password, rememberedOne: remembered, remember: false, takeSlot: false, backend, asking: false)
        return .loggedIn(session)
      }
    } catch {
      let failure = error as? any UserFacingError
      let status = failure?.status ?? .failure
      let message = failure?.message ?? "\(error)"
      if mayStillLand(error) { silence.keyringSilence = (status, message) }
      return .failed(status: status, message: message)
    }
  }
}

extension SessionFlow {
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

/// The entries of `logInStale`, filled in by its threads.
private final class StaleResults: @unchecked Sendable {
  private var slots: [StaleLoginEntry.Outcome?]
  private var silence: (status: ExitStatus, message: String)?
  private let lock = Lock()

  init(count: Int) { slots = Array(repeating: nil, count: count) }

  /// The keyring's first timeout, after which no account asks it again.
  var keyringSilence: (status: ExitStatus, message: String)? {
    get { lock.locked { silence } }
    set { lock.locked { if silence == nil { silence = newValue } } }
  }

  func set(_ index: Int, _ outcome: StaleLoginEntry.Outcome) { lock.locked { slots[index] = outcome } }

  func entries(_ ids: [AccountID]) -> [StaleLoginEntry] {
    lock.locked {
      zip(ids, slots).map { StaleLoginEntry(id: $0, outcome: $1 ?? .failed(status: .failure, message: "not tried")) }
    }
  }
}
