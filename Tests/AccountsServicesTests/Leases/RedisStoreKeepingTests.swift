@testable import AccountsServices
import Testing

/// Which Redis settings lose lease keys, as `checkKeepsKeys` judges them from `CONFIG GET`.
@Suite struct RedisStoreKeepingTests {
  func problem(_ appendOnly: String?, save: String? = "", maxMemory: String? = "0", policy: String? = "noeviction")
    -> String?
  {
    RedisLeaseStore.keepingProblem(appendOnly: appendOnly, save: save, maxMemory: maxMemory, evictionPolicy: policy)
  }

  @Test func anAppendOnlyRedisWithoutEvictionKeepsItsKeys() {
    #expect(problem("yes") == nil)
    #expect(problem("yes", save: "3600 1", maxMemory: "0", policy: "allkeys-lru") == nil, "no maxmemory: nothing evicted")
    #expect(problem("yes", maxMemory: "1073741824", policy: "noeviction") == nil)
  }

  @Test func memoryOnlySnapshotsAndEvictionAreEachNamed() {
    #expect(problem("no", save: "")?.contains("keeps its keys only in memory") == true)
    #expect(problem("no", save: "  ")?.contains("keeps its keys only in memory") == true)
    #expect(problem("no", save: "3600 1")?.contains("only in snapshots") == true)
    let evicting = problem("yes", maxMemory: "1073741824", policy: "volatile-lru")
    #expect(evicting == "may evict keys when full (maxmemory-policy volatile-lru)")
    #expect(problem("no", maxMemory: "1", policy: "allkeys-random")?.contains(", and may evict keys") == true)
  }

  /// A setting CONFIG did not give (a managed Redis refusing it): no judgement, no word.
  @Test func anUnknownSettingSaysNothing() {
    #expect(problem(nil) == nil)
    #expect(problem("no", save: nil) == nil)
    #expect(problem("yes", maxMemory: nil) == nil)
  }
}
