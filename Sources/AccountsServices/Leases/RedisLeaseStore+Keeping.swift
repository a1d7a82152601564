import AccountsContract
import AccountsCore
import Synchronization

/// Whether a Redis keeps the lease keys it was given: a restart without persistence forgets
/// every lease, and an evicted key is an account free for a second holder while its first
/// one runs. Asked once per command and store (`CONFIG GET`), said as a warning; a Redis that
/// refuses CONFIG (a managed one, or a user without the right) is taken on trust, never failed.
/// A store that fails to answer at all fails here as it would on the command's next call,
/// rather than costing that call a second timeout.
extension RedisLeaseStore {
  /// The stores already asked in this process.
  private static let asked = Mutex<Set<String>>([])

  /// Warns (through `warn`) when the store may lose lease keys; once per process and store.
  func checkKeepsKeys() throws(LeaseStoreUnavailable) {
    let first = Self.asked.withLock { $0.insert(address.description).inserted }
    guard first else { return }
    let redis = try connection()
    var refused = false
    func setting(_ name: String) throws(LeaseStoreUnavailable) -> String? {
      guard !refused else { return nil }
      let reply: RedisValue
      do {
        reply = try redis.call(["CONFIG", "GET", name])
      } catch {
        connected = nil
        throw error
      }
      guard case .array(let pair) = reply, pair.count == 2, let value = pair[1].text else {
        refused = true
        return nil
      }
      return value
    }
    if let problem = Self.keepingProblem(
      appendOnly: try setting("appendonly"), save: try setting("save"), maxMemory: try setting("maxmemory"),
      evictionPolicy: try setting("maxmemory-policy"))
    {
      warn(
        "lease store \(address): it \(problem), and a lease lost there gives its account a second holder; "
          + "give the leases a Redis with `appendonly yes` and `maxmemory-policy noeviction`")
    }
  }

  /// What in these settings loses lease keys, nil when nothing does (or a setting is unknown).
  static func keepingProblem(appendOnly: String?, save: String?, maxMemory: String?, evictionPolicy: String?) -> String? {
    guard let appendOnly, let save, let maxMemory, let evictionPolicy else { return nil }
    var problems: [String] = []
    if appendOnly != "yes" {
      problems.append(
        save.allSatisfy(\.isWhitespace)
          ? "keeps its keys only in memory (appendonly no, no save): a restart forgets every lease"
          : "writes its keys to disk only in snapshots (appendonly no): a restart forgets the leases since the last one")
    }
    if maxMemory != "0", evictionPolicy != "noeviction" {
      problems.append("may evict keys when full (maxmemory-policy \(RedisConnection.shown(evictionPolicy)))")
    }
    return problems.isEmpty ? nil : problems.joined(separator: ", and ")
  }
}
