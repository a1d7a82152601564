import AccountsContract
import AccountsCore
import Foundation
import Synchronization

/// Session locks in memory: one lock per account shared by every instance of a registry (as
/// every process shares the lock file), reentrant within the instance that holds it (as a
/// flow's are). AccountsServices' `SessionLocks` is tested against the real lock file.
public final class FakeSessionLocks: SessionLocking, @unchecked Sendable {
  /// The accounts locked, by any instance of this registry.
  public final class Registry: @unchecked Sendable {
    let condition = NSCondition()
    var locked: Set<AccountID> = []

    public init() {}
  }

  public let registry: Registry
  private let held = Mutex<Set<AccountID>>([])

  /// A flow's locks in `registry` (one per index: a world's).
  public init(registry: Registry) { self.registry = registry }

  public func exclusive<Result>(_ id: AccountID, _ body: () throws -> Result) throws -> Result {
    if held.withLock({ $0.contains(id) }) { return try body() }
    registry.condition.lock()
    while registry.locked.contains(id) { registry.condition.wait() }
    registry.locked.insert(id)
    registry.condition.unlock()
    held.withLock { _ = $0.insert(id) }
    defer {
      held.withLock { _ = $0.remove(id) }
      registry.condition.lock()
      registry.locked.remove(id)
      registry.condition.broadcast()
      registry.condition.unlock()
    }
    return try body()
  }
}
