import Glibc
import Synchronization

/// Runs `body` for every index in `0..<count` on at most `width` threads at once; returns when
/// all are done.
public func forEachConcurrently(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) -> Void) {
  guard count > 0 else { return }
  let workers = max(1, min(width, count))
  final class Work: Sendable {
    let body: @Sendable (Int) -> Void
    let count: Int
    let next = Mutex(0)
    init(_ body: @escaping @Sendable (Int) -> Void, _ count: Int) {
      self.body = body
      self.count = count
    }
    func take() -> Int? {
      next.withLock { next -> Int? in
        guard next < count else { return nil }
        defer { next += 1 }
        return next
      }
    }
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
