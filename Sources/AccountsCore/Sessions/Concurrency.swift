import AccountsSystem
import Glibc
import Synchronization

/// The lock for the little state a flow's threads share beside it: a `Synchronization.Mutex`
/// (accounts' one kind of lock) around the critical section.
final class Lock: Sendable {
  private let mutex = Mutex(())

  init() {}

  func locked<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
    try mutex.withLock { _ throws(Failure) -> Result in try body() }
  }
}

/// A Secret Service reached by one thread at a time, connected on first use: the library's
/// calls are made for one caller, and the keyring daemon serialises them anyway.
public final class SerializedSecretStore: SecretStore, @unchecked Sendable {
  /// The store, connected on first use by the one cache that keeps it (the environment's).
  private let connect: () throws -> SecretStore
  private let mutex = Lock()

  public init(connect: @escaping () throws -> SecretStore) { self.connect = connect }

  public convenience init(_ store: SecretStore) { self.init(connect: { store }) }

  private var inner: SecretStore {
    get throws { try connect() }
  }

  public func store(_ secret: SecretBytes, for key: SecretKey) throws { try mutex.locked { try inner.store(secret, for: key) } }
  public func lookup(_ key: SecretKey) throws -> SecretBytes? { try mutex.locked { try inner.lookup(key) } }
  public func lookupAll(kind: SecretKind) throws -> [SecretKey: SecretBytes] {
    try mutex.locked { try inner.lookupAll(kind: kind) }
  }
  public func kinds(backend: String, account: String) throws -> [SecretKind] {
    try mutex.locked { try inner.kinds(backend: backend, account: account) }
  }
  public func providerName() throws -> String? { try mutex.locked { try inner.providerName() } }
  public func delete(_ key: SecretKey) throws { try mutex.locked { try inner.delete(key) } }
  public func deleteAll(backend: String, account: String) throws {
    try mutex.locked { try inner.deleteAll(backend: backend, account: account) }
  }
  public func deleteSettings(backend: String) throws { try mutex.locked { try inner.deleteSettings(backend: backend) } }
  public func lock() throws -> String { try mutex.locked { try inner.lock() } }
  public func report() throws -> SecretServiceReport { try mutex.locked { try inner.report() } }
}

/// Runs `body` for every index in `0..<count` on at most `width` threads at once; returns when
/// all are done.
public func forEachConcurrently(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) -> Void) {
  guard count > 0 else { return }
  let workers = max(1, min(width, count))
  final class Work: @unchecked Sendable {
    let body: @Sendable (Int) -> Void
    let count: Int
    var next = 0
    let lock = Lock()
    init(_ body: @escaping @Sendable (Int) -> Void, _ count: Int) {
      self.body = body
      self.count = count
    }
    func take() -> Int? { lock.locked { () -> Int? in
      guard next < count else { return nil }
      defer { next += 1 }
      return next
    } }
    func drain() { while let index = take() { body(index) } }
  }
  let work = Work(body, count)
  var threads: [pthread_t] = []
  for _ in 1..<workers {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(work).toOpaque()
    let started = pthread_create(&thread, nil, { context in
      let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
      work.drain()
      return nil
    }, context)
    if started == 0 { threads.append(thread) } else { Unmanaged<Work>.fromOpaque(context).release() }
  }
  work.drain()  // this thread works too
  for thread in threads { pthread_join(thread, nil) }
}
