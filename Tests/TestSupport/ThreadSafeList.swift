import Synchronization

/// Values appended from several threads at once, read when they are done.
public final class ThreadSafeList<Value: Sendable>: Sendable {
  private let values = Mutex<[Value]>([])

  public init() {}

  public func append(_ value: Value) { values.withLock { $0.append(value) } }

  public func append(contentsOf more: [Value]) { values.withLock { $0 += more } }

  public var all: [Value] { values.withLock { $0 } }
}
